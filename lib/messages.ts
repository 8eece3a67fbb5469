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

export const antiBotMessage = 'Le formulaire n’a pas pu être validé. Il peut être envoyé à nouveau depuis cette page.';

// A form sent under 1.5 s after its page (middleware/anti-bot.ts): said as it is, everything typed given back.
export const tooFastMessage =
  'Le formulaire est parti trop vite après l’affichage de la page (moins d’une seconde et demie, comme avec un remplissage automatique). Tout ce qui a été saisi est conservé : il peut être envoyé à nouveau.';

export const crossSiteMessage = 'Requête refusée : elle provient d’un autre site.';

export const csrfMessage = 'Le formulaire a expiré. Il peut être envoyé à nouveau depuis cette page.';

export const genericMessages = {
  internal: 'Une erreur inattendue est survenue. Un nouvel essai sera possible plus tard.',
  unavailable: 'Le service est momentanément indisponible. Un nouvel essai sera possible dans un instant.',
  notFound: 'Page introuvable.',
  invalidJson: 'Le corps de la requête n’est pas un JSON valide.',
  tooLarge: 'La requête est trop volumineuse.',
  unsupportedBody: 'Type de contenu non pris en charge.',
  badRequest: 'La requête est mal formée.',
};

export const twoFactorGateMessages = {
  enrolmentRequired:
    'Un rôle de ce compte exige la vérification en deux étapes : elle doit être activée (page « Vérification en deux étapes » du profil, /account/2fa) avant toute autre action.',
};

export const authMessagesForGuards = {
  loginRequired: 'Connexion requise : cette action demande une session ouverte.',
  forbidden: 'Les droits nécessaires pour cette action manquent à ce compte.',
};

export const textMessages = {
  unstorable: '{{#label}} contient un caractère non autorisé.',
  notSingleLine:
    '{{#label}} tient sur une seule ligne, sans caractère de contrôle (retour à la ligne, tabulation, séquence d’échappement) ni caractère d’inversion du sens du texte.',
};

export const mailMessages = {
  mailFailed: 'Le courriel n’a pas pu être envoyé. Un nouvel essai sera possible plus tard.',
} as const;

export const apiMessages = {
  jsonOnly: 'Le corps de la requête doit être envoyé en application/json.',
};

// Without a mail server (MAIL_OUTBOX) a screen must not say a message is sent: it says
// where the message is. Staff screens name the server's folder; screens any visitor or
// account holder sees say only that it is kept on the server.
export const OUTBOX_FOR_VISITORS =
  'ce site n’a pas de serveur de courriel ; le message est gardé sur le serveur, d’où l’administration du site peut le transmettre';

/** Where a message written instead of sent is: the outbox folder, named. */
export function outboxPlace(folder: string): string {
  return `il est écrit dans le dossier « ${folder} » du serveur (MAIL_OUTBOX : aucun courriel ne part)`;
}

export const restoredMessage = 'La session avait expiré\u00a0: ce qui avait été saisi est rendu ci-dessous, il reste à l’envoyer.';

export const auditMessages = {
  badCursor: 'Le curseur de pagination n’est pas valide : reprendre la liste depuis le début.',
} as const;

/** 10485760 → «10», 1572864 → «1,5». */
/** A size in megabytes the French way (one decimal at most, a comma): «10», «2,5». */
export function megabytes(bytes: number): string {
  return frenchNumber(Math.round((bytes / (1024 * 1024)) * 10) / 10);
}

function frenchNumber(value: number): string {
  // Thin groups (U+202F) and a decimal comma, as French typography writes them.
  return value.toLocaleString('fr-FR').replace(/\s/g, '\u202f');
}

export const uploadMessages = {
  tooLarge: 'Le fichier dépasse la taille maximale de 2 Mo.',
  mediaTooLarge: (bytes: number) => `L’image dépasse la taille maximale de ${megabytes(bytes)} Mo.`,
  tooManyPixels: (size: { width: number; height: number }, max: number) =>
    `L’image fait ${frenchNumber(size.width)} × ${frenchNumber(size.height)} pixels\u00a0: ${frenchNumber(max / 1_000_000)} mégapixels au plus sont acceptés.`,
  notAnImage: 'Seules les images PNG, JPEG et WebP sont acceptées.',
  notMultipart: 'Le fichier doit être envoyé en multipart/form-data.',
  missingFile: 'Aucun fichier reçu.',
  oneFileOnly: 'Un seul fichier est accepté, dans le champ prévu.',
  formRefused: 'Le formulaire envoyé est trop grand ou mal formé (trop de fichiers ou de champs)\u00a0: rien n’est enregistré.',
};

// The 421 of a request naming another host (middleware/host-check.ts): for the operator whose domain it is.
export const HOST_REFUSED_TEXT =
  'Ce serveur ne répond pas à cette adresse (421). Si c’est celle du site, la variable BASE_URL de sa configuration doit la donner.\n';
