// User-facing text of the core's own machinery (validation at the edge, rate limits):
// French, impersonal, «courriel», never «avec succès». Each area keeps its own
// messages.ts; this one is for what every area shares.

export const validationMessages = {
  invalid: 'Certaines valeurs envoyées ne sont pas valides.',
};

// French messages for the common rules, so API clients and forms can show them as is.
export const joiMessages: Record<string, string> = {
  'any.required': '{{#label}} est obligatoire.',
  'string.empty': '{{#label}} ne peut pas être vide.',
  'string.base': '{{#label}} doit être une chaîne de caractères.',
  'string.email': '{{#label}} doit être une adresse de courriel valide.',
  'string.max': '{{#label}} ne doit pas dépasser {{#limit}} caractères.',
  'string.min': '{{#label}} doit contenir au moins {{#limit}} caractères.',
  'string.pattern.base': '{{#label}} a un format invalide.',
  'number.base': '{{#label}} doit être un nombre.',
  'number.integer': '{{#label}} doit être un nombre entier.',
  'number.min': '{{#label}} doit être supérieur ou égal à {{#limit}}.',
  'number.max': '{{#label}} doit être inférieur ou égal à {{#limit}}.',
  'boolean.base': '{{#label}} doit valoir true ou false.',
  'object.unknown': '{{#label}} n’est pas un champ accepté.',
  'object.base': '{{#label}} doit être un objet.',
  'array.base': '{{#label}} doit être une liste.',
  'any.only': '{{#label}} doit valoir : {{#valids}}.',
  'date.base': '{{#label}} doit être une date ISO valide.',
};

export const rateLimitMessages = {
  /** `wait` is waitText()'s «12 minutes». */
  tooMany: (subject: 'address' | 'account', wait: string) =>
    `Trop de tentatives ${subject === 'address' ? 'depuis cette adresse' : 'pour ce compte'}. Un nouvel essai sera possible dans ${wait}.`,
};
