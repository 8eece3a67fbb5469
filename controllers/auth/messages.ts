// Text of the /auth pages (SPEC A2–A4): impersonal, «courriel», never «e-mail» nor
// «avec succès». Model errors carry their own messages (models/auth/messages.ts).
import { OUTBOX_FOR_VISITORS } from '../../lib/messages.js';

export type AuthPage =
  'first-run' | 'login' | 'register' | 'forgot' | 'reset' | 'confirm' | 'setup' | 'logout' | 'two-factor' | 'sso-link' | 'sso-link-confirm';

export const authPageTexts: Record<AuthPage, { title: string; description: string }> = {
  'first-run': {
    title: 'Première configuration',
    description: 'Aucun compte n’existe encore : le compte créé ici administrera le site.',
  },
  login: { title: 'Connexion', description: 'Accès au compte avec le courriel et le mot de passe.' },
  register: { title: 'Créer un compte', description: 'Un nom, un courriel et un mot de passe suffisent.' },
  forgot: { title: 'Mot de passe oublié', description: 'Un lien pour choisir un nouveau mot de passe sera envoyé au courriel du compte.' },
  reset: { title: 'Nouveau mot de passe', description: 'Choix d’un nouveau mot de passe pour le compte.' },
  confirm: { title: 'Vérification du courriel', description: 'Confirmation de l’adresse de courriel du compte.' },
  setup: { title: 'Activer le compte', description: 'Choix du mot de passe qui activera le compte.' },
  logout: { title: 'Déconnexion', description: 'Fermeture de la session sur cet appareil.' },
  'sso-link': {
    title: 'Lier le compte',
    description: 'Un compte du site a déjà ce courriel : il doit être prouvé avant d’être lié au fournisseur de connexion.',
  },
  'sso-link-confirm': {
    title: 'Lier le compte',
    description: 'Confirmation de la liaison du compte au fournisseur de connexion.',
  },
  'two-factor': {
    title: 'Vérification en deux étapes',
    description: 'Le code à 6 chiffres affiché par l’application d’authentification, ou un code de secours.',
  },
};

export const authPageMessages = {
  // The same words whether the address was new or already had an account (its owner is
  // then emailed «Un compte existe déjà avec cette adresse»): true in both cases.
  registered: 'Un courriel vient d’être envoyé à l’adresse indiquée, avec la suite à donner : son lien est à ouvrir avant la première connexion.',
  registeredMailFailed:
    'Le courriel destiné à l’adresse indiquée n’a pas pu être envoyé. Un nouveau lien peut être demandé depuis la page de connexion, en s’y connectant.',
  forgotAnswer: 'Si un compte correspond à ce courriel, un lien de réinitialisation vient d’y être envoyé. Il reste valable une heure.',
  resendAnswer: 'Si un compte non vérifié correspond à ce courriel, un nouveau lien de vérification vient d’y être envoyé.',
  // Without a mail server (MAIL_OUTBOX): where the message is instead (services/mail-policy.ts).
  registeredOutbox: `Le courriel destiné à l’adresse indiquée, avec la suite à donner, n’est pas envoyé : ${OUTBOX_FOR_VISITORS}.`,
  forgotAnswerOutbox: `Si un compte correspond à ce courriel, un lien de réinitialisation vient d’être préparé, sans être envoyé : ${OUTBOX_FOR_VISITORS}. Il reste valable une heure.`,
  resendAnswerOutbox: `Si un compte non vérifié correspond à ce courriel, un nouveau lien de vérification vient d’être préparé, sans être envoyé : ${OUTBOX_FOR_VISITORS}.`,
  registrationClosed: 'Les inscriptions sont actuellement fermées.',
  done: {
    reset: 'Le mot de passe est modifié. La connexion est possible avec le nouveau mot de passe.',
    verified: 'Le courriel est vérifié. La connexion est maintenant possible.',
    activated: 'Le compte est activé. La connexion est possible avec le mot de passe choisi.',
    logout: 'La session est fermée.',
    deleted: 'Le compte est supprimé.',
  } as Record<string, string>,
  activatedSignedIn: 'Le compte est activé.',
  noSession: 'Aucune session n’est ouverte sur cet appareil.',
  secondFactorRequired: 'Le mot de passe est correct. La vérification en deux étapes demande maintenant un code (POST /auth/2fa, champ « code »).',
  noPendingLogin: 'Aucune connexion n’attend de code sur cet appareil, ou elle a expiré (5 minutes). La connexion commence par le courriel et le mot de passe.',
  incompleteLink: 'Ce lien est incomplet. Le lien reçu par courriel doit être ouvert en entier.',
  setupCodeLabel: 'Code d’installation',
  setupCodeHint: 'Écrit dans le journal du serveur à son démarrage (ligne « setup code »). Il change à chaque démarrage.',
  setupCodeWrong: 'Le code d’installation est incorrect. Il figure dans le journal du serveur, écrit à son dernier démarrage.',
  passwordRules: 'Au moins 8 caractères (72 octets au plus). Une phrase de plusieurs mots est plus sûre qu’un mot court.',
};
