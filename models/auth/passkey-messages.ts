// User-facing text of the passkeys (SPEC A3 rules: impersonal, «courriel», never «avec succès»).
export const passkeyMessages = {
  challengeGone: 'Cette demande a expiré ou a déjà servi (5 minutes au plus). L’ajout de la clé d’accès doit être repris.',
  registrationRefused: 'La clé d’accès n’a pas pu être vérifiée. L’ajout doit être repris depuis cette page.',
  alreadyRegistered: 'Cette clé d’accès est déjà enregistrée.',
  notFound: 'Clé d’accès introuvable.',
  signInRefused: 'Cette clé d’accès n’a pas permis la connexion. La connexion peut être reprise, ou faite avec le mot de passe.',
  noPasskey: 'Ce compte n’a pas de clé d’accès : la vérification se fait avec un code.',
  secondStepRefused: (left: number) =>
    left === 1 ? 'Cette clé d’accès n’a pas été acceptée. Il reste 1 essai.' : `Cette clé d’accès n’a pas été acceptée. Il reste ${left} essais.`,
  nameInvalid: 'Le nom de la clé compte de 1 à 100 caractères.',
  responseInvalid: 'La réponse de l’authentificateur est illisible. L’opération doit être reprise.',
} as const;
