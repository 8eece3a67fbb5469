// The audit log in French, for the screen: one label per action the site records, one
// per target type. An action without a label (a module's, an old one) shows its name.
export const AUDIT_ACTION_LABELS: Record<string, string> = {
  'auth.first_admin_created': 'Premier administrateur créé (première configuration)',
  'auth.login': 'Connexion',
  'auth.login_failed': 'Connexion refusée',
  'auth.logout': 'Déconnexion',
  'auth.login_throttled': 'Connexions ralenties (trop de mots de passe erronés pour ce compte)',
  'auth.second_factor_failed': 'Code de vérification erroné',
  'auth.second_factor_throttled': 'Connexions ralenties (trop de codes erronés pour ce compte)',
  'auth.sign_up_existing': 'Inscription avec l’adresse d’un compte existant',
  'auth.password_reset': 'Mot de passe réinitialisé par lien',
  'auth.account_setup': 'Compte activé (invitation acceptée)',
  'account.password_changed': 'Mot de passe changé',
  'account.email_change_requested': 'Changement de courriel demandé',
  'account.email_changed': 'Courriel changé',
  'account.session_revoked': 'Session fermée',
  'account.sessions_revoked': 'Sessions fermées',
  'account.deleted_by_self': 'Compte supprimé par son titulaire',
  'two_factor.enabled': 'Vérification en deux étapes activée',
  'two_factor.disabled': 'Vérification en deux étapes désactivée',
  'two_factor.recovery_used': 'Code de secours utilisé',
  'two_factor.recovery_codes_renewed': 'Codes de secours renouvelés',
  'two_factor.reset_by_admin': 'Vérification en deux étapes retirée par un administrateur',
  'user.created': 'Compte créé',
  'user.invited': 'Compte invité',
  'user.updated': 'Compte modifié',
  'user.role_added': 'Rôle attribué',
  'user.role_removed': 'Rôle retiré',
  'user.email_change_requested': 'Changement de courriel demandé par un administrateur',
  'user.email_changed': 'Courriel changé par un administrateur',
  'user.password_set': 'Mot de passe défini par un administrateur',
  'user.password_reset_sent': 'Lien de réinitialisation envoyé',
  'user.invitation_resent': 'Invitation renvoyée',
  'user.suspended': 'Compte suspendu',
  'user.restored': 'Compte rétabli',
  'user.deleted': 'Compte supprimé',
  'role.created': 'Rôle créé',
  'role.updated': 'Rôle modifié',
  'role.deleted': 'Rôle supprimé',
  'page.created': 'Page créée',
  'page.updated': 'Page modifiée',
  'page.published': 'Page rendue publique',
  'page.unpublished': 'Page rendue privée',
  'page.scheduled': 'Publication programmée',
  'page.schedule_cancelled': 'Publication programmée annulée',
  'page.scheduled_published': 'Brouillon publié à l’heure programmée',
  'page.draft_saved': 'Brouillon enregistré',
  'page.draft_published': 'Brouillon publié',
  'page.draft_discarded': 'Brouillon abandonné',
  'page.revision_restored': 'Révision reprise en brouillon',
  'page.preview_link_created': 'Lien d’aperçu créé',
  'page.preview_links_revoked': 'Liens d’aperçu révoqués',
  'page.moved': 'Page déplacée',
  'page.deleted': 'Page supprimée',
  'media.added': 'Média ajouté',
  'media.removed': 'Média supprimé',
  'redirect.created': 'Redirection ajoutée',
  'redirect.deleted': 'Redirection supprimée',
};

export const AUDIT_TARGET_LABELS: Record<string, string> = {
  user: 'Compte',
  role: 'Rôle',
  page: 'Page',
  media: 'Média',
  redirect: 'Redirection',
};

export function actionLabel(action: string): string {
  return AUDIT_ACTION_LABELS[action] ?? action;
}

export function targetTypeLabel(type: string): string {
  return AUDIT_TARGET_LABELS[type] ?? type;
}
