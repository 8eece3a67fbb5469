// Subjects of the outgoing emails (SPEC A8), French, impersonal, «courriel».
export const mailSubjects: Record<string, (appName: string, data: Record<string, unknown>) => string> = {
  verification: (appName) => `Vérification du courriel — ${appName}`,
  'password-reset': (appName) => `Réinitialisation du mot de passe — ${appName}`,
  'password-changed': (appName) => `Mot de passe modifié — ${appName}`,
  invitation: (appName) => `Invitation à activer un compte — ${appName}`,
  'email-change-confirm': (appName) => `Confirmation de la nouvelle adresse de courriel — ${appName}`,
  'email-change-notify': (appName) => `Changement de l’adresse de courriel — ${appName}`,
  'recovery-code-used': (appName) => `Code de secours utilisé — ${appName}`,
  'two-factor-reset': (appName) => `Vérification en deux étapes désactivée — ${appName}`,
  'passkey-added': (appName) => `Nouvelle clé d’accès ajoutée — ${appName}`,
  'unusual-sign-in': (appName) => `Tentatives de connexion inhabituelles — ${appName}`,
  'sso-link-confirm': (appName) => `Liaison d’un compte à un fournisseur de connexion — ${appName}`,
  'account-linked': (appName, data) => `Compte lié à ${String(data.provider)} — ${appName}`,
  'account-exists': (appName) => `Un compte existe déjà avec cette adresse — ${appName}`,
};
