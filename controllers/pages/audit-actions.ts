// The pages module's audit actions and target types (declared by routes/pages/index.ts):
// labels in French, and the editor as the place a page's change is opened.
import { linkById, type AuditAction, type AuditTarget } from '../../lib/modules.js';

const pageLink = linkById('/admin/pages');

export const PAGES_AUDIT_ACTIONS: Record<string, AuditAction> = {
  'page.created': { label: 'Page créée', target: pageLink },
  'page.updated': { label: 'Page modifiée', target: pageLink },
  'page.published': { label: 'Page rendue publique', target: pageLink },
  'page.unpublished': { label: 'Page rendue privée', target: pageLink },
  'page.scheduled': { label: 'Publication programmée', target: pageLink },
  'page.schedule_cancelled': { label: 'Publication programmée annulée', target: pageLink },
  'page.scheduled_published': { label: 'Brouillon publié à l’heure programmée', target: pageLink },
  'page.draft_saved': { label: 'Brouillon enregistré', target: pageLink },
  'page.draft_published': { label: 'Brouillon publié', target: pageLink },
  'page.draft_discarded': { label: 'Brouillon abandonné', target: pageLink },
  'page.revision_restored': { label: 'Révision reprise en brouillon', target: pageLink },
  'page.preview_link_created': { label: 'Lien d’aperçu créé', target: pageLink },
  'page.preview_links_revoked': { label: 'Liens d’aperçu révoqués', target: pageLink },
  'page.moved': { label: 'Page déplacée', target: pageLink },
  'page.access_changed': { label: 'Accès à la page modifié', target: pageLink },
  'page.deleted': { label: 'Page supprimée' },
  'media.added': { label: 'Média ajouté' },
  'media.removed': { label: 'Média supprimé' },
  'redirect.created': { label: 'Redirection ajoutée' },
  'redirect.deleted': { label: 'Redirection supprimée' },
  'menu.updated': { label: 'Menu modifié', target: () => '/admin/menus' },
};

export const PAGES_AUDIT_TARGETS: Record<string, AuditTarget> = {
  page: { label: 'Page', permission: 'pages.view' },
  media: { label: 'Média', permission: 'pages.view' },
  redirect: { label: 'Redirection', permission: 'pages.view' },
  menu: { label: 'Menu', permission: 'menus.manage' },
};
