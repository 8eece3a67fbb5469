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
  ssoProviderNotFound: 'Fournisseur de connexion introuvable.',
  ssoLabelTaken: 'Un fournisseur de connexion porte déjà ce libellé.',
} as const;

/** Why a single sign-on was refused (the page says it; the audit event names the reason). */
export const ssoMessages = {
  providerUnavailable: 'Ce fournisseur de connexion n’existe pas ou est désactivé.',
  providerDown: 'Le fournisseur de connexion ne répond pas. Un nouvel essai est possible dans quelques minutes, ou la connexion par mot de passe.',
  flowMissing: 'Cette connexion n’a pas été commencée depuis ce navigateur, ou a expiré (10 minutes). Elle doit être reprise depuis la page de connexion.',
  stateMismatch: 'La réponse du fournisseur ne correspond pas à la connexion commencée ici. Elle doit être reprise depuis la page de connexion.',
  providerRefused: 'Le fournisseur de connexion a refusé la connexion.',
  tokenRejected:
    'La réponse du fournisseur n’a pas pu être vérifiée (jeton invalide, expiré ou déjà utilisé). La connexion doit être reprise depuis la page de connexion.',
  emailMissing: 'Le fournisseur n’a pas donné de courriel vérifié pour ce compte : aucun compte ne peut lui être associé.',
  domainRefused: 'Ce fournisseur ne permet pas de créer un compte avec un courriel de ce domaine. Un administrateur peut créer le compte.',
  signupClosed:
    'Aucun compte du site n’est lié à ce compte du fournisseur, et ce fournisseur ne permet pas d’en créer. Un administrateur peut créer le compte.',
  accountSuspended: authMessages.accountSuspended,
  linkGone: 'Cette demande de liaison a expiré (15 minutes). La connexion avec le fournisseur doit être reprise.',
  linkProved: (provider: string) => `Le compte est maintenant lié à ${provider}.`,
  linkEmailSent: 'Un lien de confirmation a été envoyé au courriel du compte. Il est valable 1 heure.',
  lastWayToSignIn: 'C’est le dernier moyen de connexion de ce compte : un mot de passe doit d’abord être défini, ou un autre fournisseur lié.',
  linkNotFound: 'Ce compte n’est pas lié à ce fournisseur.',
  issuerNotHttps: 'L’adresse de l’émetteur doit commencer par https:// (http:// n’est accepté que pour un fournisseur sur cette machine, hors production).',
  alreadyLinked: 'Ce compte du fournisseur est déjà lié à un compte du site, ou ce compte du site est déjà lié à un autre compte de ce fournisseur.',
} as const;

export const twoFactorServiceMessages = {
  requiredByRole: 'Un rôle de ce compte exige la vérification en deux étapes : elle ne peut pas être désactivée.',
  pendingLoginGone: 'Cette vérification a expiré ou n’est plus valable (5 minutes, 5 essais au plus). La connexion doit être reprise avec le mot de passe.',
  wrongCodeLeft: (left: number) =>
    left === 1 ? 'Le code est incorrect ou a déjà servi. Il reste 1 essai.' : `Le code est incorrect ou a déjà servi. Il reste ${left} essais.`,
} as const;

export const roleMessages = {
  notFound: 'Rôle introuvable.',
  nameTaken: 'Un rôle porte déjà ce nom.',
  labelTaken: 'Un rôle porte déjà ce libellé.',
  unknownPermissions: 'Ces permissions n’existent pas : {keys}.',
  systemRoleNotDeletable: 'Un rôle système ne peut pas être supprimé.',
  adminNotEditable: 'Le rôle admin ne peut pas être modifié : il détient toutes les permissions.',
  systemRoleNotRenamable: 'Un rôle système ne peut pas être renommé.',
  escalation: 'Une permission que ce compte ne détient pas ne peut être ni accordée ni retirée : {keys}.',
  renameEscalation: 'Ce rôle détient des permissions que ce compte n’a pas ({keys}) : il ne peut pas être renommé depuis ce compte.',
  requirementLocksCallerOut:
    'Ce compte a ce rôle et n’a pas activé la vérification en deux étapes : une fois l’obligation enregistrée, il n’accédera plus qu’à la page d’activation de la vérification en deux étapes, jusqu’à ce qu’elle soit faite. Une confirmation est nécessaire pour enregistrer.',
  outranksCaller: 'Ce rôle détient des permissions que ce compte n’a pas ({keys}) : il ne peut pas être modifié depuis ce compte.',
  adminOutranksCaller:
    'Le rôle Administrateur détient toutes les permissions : seul un compte qui les détient toutes peut le modifier (il manque à celui-ci : {keys}).',
  adminAccessMissing:
    'Ce rôle donne des permissions de l’administration sans admin.access (« Accéder à l’administration ») : ses comptes recevront 403 sur /admin et sur les routes de l’API qui les demandent.',
} as const;

export const profileMessages = {
  notFound: 'Utilisateur introuvable.',
  sameEmail: 'Ce courriel est déjà celui du compte.',
  invalidLink: authMessages.invalidOrExpiredLink,
  emailTaken: authMessages.emailTaken,
} as const;

export const lifecycleMessages = {
  ownAccountSuspension: 'Son propre compte ne peut être ni suspendu ni rétabli.',
  ownAccountDeletion: 'Son propre compte se supprime depuis la page « Mon profil » (/account), avec le mot de passe actuel.',
  alreadySuspended: 'Ce compte est déjà suspendu.',
  notSuspended: 'Ce compte n’est pas suspendu.',
  lastAdministrator: 'Ce compte est le dernier administrateur actif : un autre administrateur doit d’abord exister.',
  deletedAccount: 'Compte supprimé',
} as const;

export const adminUserMessages = {
  notFound: 'Utilisateur introuvable.',
  unknownRole: authMessages.unknownRole,
  lastAdministrator: authMessages.lastAdministrator,
  targetOutranksCaller: 'Ce compte détient des permissions absentes du compte connecté : il ne peut pas être modifié depuis celui-ci.',
  roleNotHeld: 'Ce compte n’a pas ce rôle.',
  baseRoleNotRemovable: 'Le rôle user est le rôle de base : il ne peut pas être retiré.',
  accountActive: authMessages.accountAlreadyActive,
  emailTaken: authMessages.emailTaken,
  useProfile:
    'Son propre courriel et son propre mot de passe se changent depuis la page « Mon profil » (/account ou /admin/profile), avec le mot de passe actuel.',
} as const;

export const twoFactorMessages = {
  codeWrong: 'Le code est incorrect ou a déjà servi. Un nouveau code de l’application, ou un code de secours, est nécessaire.',
  setupCodeWrong: 'Le code est incorrect. Il doit venir de l’application où la clé vient d’être ajoutée, à l’heure exacte.',
  noPendingSetup: 'Aucune activation n’est en cours : une nouvelle clé doit d’abord être demandée.',
  alreadyEnabled: 'La vérification en deux étapes est déjà activée pour ce compte.',
  notEnabled: 'La vérification en deux étapes n’est pas activée pour ce compte.',
} as const;
