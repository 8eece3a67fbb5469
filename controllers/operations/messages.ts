// What the operations endpoints say to a person (the probes only read the status).
export const operationsMessages = {
  metricsToken: 'L’accès aux métriques demande le jeton METRICS_TOKEN (en-tête Authorization: Bearer).',
};
