// User-facing text of the authentication feature, in one place. Rules (SPEC A3):
// impersonal, «courriel» (never «e-mail»), never «avec succès».
export const authMessages = {
  invalidCredentials: 'Courriel ou mot de passe incorrect.',
  emailUnverified: "Le courriel de ce compte n'a pas été vérifié.",
  accountSuspended: 'Ce compte est suspendu.',
  registrationClosed: 'Les inscriptions sont actuellement fermées.',
  adminAlreadyExists: 'Le compte administrateur existe déjà',
  emailTaken: 'Un compte existe déjà pour ce courriel.',
  invalidOrExpiredLink: 'Ce lien est invalide ou a expiré. Une nouvelle demande est nécessaire.',
  passwordTooShort: 'Le mot de passe doit contenir au moins 8 caractères.',
  passwordTooLong: 'Le mot de passe ne doit pas dépasser 72 octets (environ 72 caractères sans accents).',
  passwordsDoNotMatch: 'Les deux mots de passe ne correspondent pas.',
  currentPasswordWrong: 'Le mot de passe actuel est incorrect.',
  accountAlreadyActive: 'Ce compte est déjà activé. La connexion est possible avec son mot de passe.',
  lastAdministrator: 'Le dernier administrateur ne peut pas perdre le rôle admin.',
  sessionNotFound: 'Session introuvable.',
  unknownRole: 'Ce rôle n’existe pas.',
} as const;
