// The core's audit actions and target types, declared by the core module like any
// module's (routes/core-module.ts): labels in French, and where a target is opened. A
// deletion leaves nothing to open.
import { linkById, type AuditAction, type AuditTarget } from '../../lib/modules.js';

const userLink = linkById('/admin/users');
const roleLink = linkById('/admin/roles');
const providerLink = linkById('/admin/sign-in');

export const CORE_AUDIT_ACTIONS: Record<string, AuditAction> = {
  'auth.first_admin_created': { label: 'Premier administrateur créé (première configuration)', target: userLink },
  'auth.login': { label: 'Connexion' },
  'auth.login_failed': { label: 'Connexion refusée' },
  'auth.logout': { label: 'Déconnexion' },
  'auth.login_throttled': { label: 'Connexions ralenties (trop de mots de passe erronés pour ce compte)', target: userLink },
  'auth.second_factor_failed': { label: 'Code de vérification erroné', target: userLink },
  'auth.second_factor_throttled': { label: 'Connexions ralenties (trop de codes erronés pour ce compte)', target: userLink },
  'auth.sign_up_existing': { label: 'Inscription avec l’adresse d’un compte existant', target: userLink },
  'auth.password_reset': { label: 'Mot de passe réinitialisé par lien', target: userLink },
  'auth.account_setup': { label: 'Compte activé (invitation acceptée)', target: userLink },
  'account.password_changed': { label: 'Mot de passe changé', target: userLink },
  'account.email_change_requested': { label: 'Changement de courriel demandé', target: userLink },
  'account.email_changed': { label: 'Courriel changé', target: userLink },
  'account.session_revoked': { label: 'Session fermée', target: userLink },
  'account.sessions_revoked': { label: 'Sessions fermées', target: userLink },
  'account.passkey_added': { label: 'Clé d’accès ajoutée', target: userLink },
  'account.passkey_removed': { label: 'Clé d’accès retirée', target: userLink },
  'auth.passkey_cloned': { label: 'Clé d’accès refusée (compteur revenu en arrière : authentificateur cloné ?)', target: userLink },
  'account.deleted_by_self': { label: 'Compte supprimé par son titulaire' },
  'two_factor.enabled': { label: 'Vérification en deux étapes activée', target: userLink },
  'two_factor.disabled': { label: 'Vérification en deux étapes désactivée', target: userLink },
  'two_factor.recovery_used': { label: 'Code de secours utilisé', target: userLink },
  'two_factor.recovery_codes_renewed': { label: 'Codes de secours renouvelés', target: userLink },
  'two_factor.reset_by_admin': { label: 'Vérification en deux étapes retirée par un administrateur', target: userLink },
  'user.created': { label: 'Compte créé', target: userLink },
  'user.invited': { label: 'Compte invité', target: userLink },
  'user.updated': { label: 'Compte modifié', target: userLink },
  'user.role_added': { label: 'Rôle attribué', target: userLink },
  'user.role_removed': { label: 'Rôle retiré', target: userLink },
  'user.email_change_requested': { label: 'Changement de courriel demandé par un administrateur', target: userLink },
  'user.email_changed': { label: 'Courriel changé par un administrateur', target: userLink },
  'user.password_set': { label: 'Mot de passe défini par un administrateur', target: userLink },
  'user.password_reset_sent': { label: 'Lien de réinitialisation envoyé', target: userLink },
  'user.invitation_resent': { label: 'Invitation renvoyée', target: userLink },
  'user.suspended': { label: 'Compte suspendu', target: userLink },
  'user.restored': { label: 'Compte rétabli', target: userLink },
  'user.deleted': { label: 'Compte supprimé' },
  'auth.sso_refused': { label: 'Connexion par un fournisseur refusée' },
  'auth.sso_account_created': { label: 'Compte créé à la première connexion par un fournisseur', target: userLink },
  'auth.sso_link_requested': { label: 'Liaison à un fournisseur demandée (compte existant à prouver)', target: userLink },
  'auth.sso_link_emailed': { label: 'Lien de liaison à un fournisseur envoyé', target: userLink },
  'auth.sso_linked': { label: 'Compte lié à un fournisseur de connexion', target: userLink },
  'auth.sso_unlinked': { label: 'Compte délié d’un fournisseur de connexion', target: userLink },
  'sign_in.provider_created': { label: 'Fournisseur de connexion ajouté', target: providerLink },
  'sign_in.provider_updated': { label: 'Fournisseur de connexion modifié', target: providerLink },
  'sign_in.provider_deleted': { label: 'Fournisseur de connexion supprimé' },
  'role.created': { label: 'Rôle créé', target: roleLink },
  'role.updated': { label: 'Rôle modifié', target: roleLink },
  'role.deleted': { label: 'Rôle supprimé' },
};

export const CORE_AUDIT_TARGETS: Record<string, AuditTarget> = {
  user: { label: 'Compte', permission: 'users.view' },
  role: { label: 'Rôle', permission: 'roles.view' },
  sso_provider: { label: 'Fournisseur de connexion', permission: 'sign_in.manage' },
};
