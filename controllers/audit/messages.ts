// Text of the audit log's screen and API (impersonal, French). The actions' labels are
// in labels.ts.
export const auditQueryMessages = {
  action: '{{#label}} est un nom d’action en minuscules, par exemple « auth.login ».',
  targetType: '{{#label}} est un type de cible en minuscules, par exemple « page ».',
  instant: '{{#label}} doit être une date ISO 8601, par exemple « 2026-11-23 » ou « 2026-11-23T14:05:00Z ».',
  day: '{{#label}} doit être une date, par exemple « 2026-11-23 ».',
  targetIdAlone: '«target_id» demande aussi «target_type» (par exemple « target_type=page&target_id=12 »).',
  targetAlone: '« Cible (numéro) » demande aussi un type de cible.',
};
