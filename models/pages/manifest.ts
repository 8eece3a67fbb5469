// The pages module's permission section (DESIGN §2), declared by its register() call
// and listed in the catalogue after the core sections. Its rows are seeded by the
// module's own migration (migrations/pages/), which keeps a frozen copy of them.
import type { PermissionSection } from '../../lib/modules.js';

export const PAGES_PERMISSION_SECTION: PermissionSection = {
  key: 'pages',
  label: 'Pages',
  position: 100,
  permissions: [
    { key: 'pages.view', label: 'Consulter les pages' },
    { key: 'pages.manage', label: 'Gérer les pages et les médias' },
    // Seeded by migration pages/20261127000100_pages_menus (an editor's job, apart from pages.manage).
    { key: 'menus.manage', label: 'Gérer les menus du site' },
    // Seeded by migration pages/20261127000400_pages_publish_and_team_roles (issue 26):
    // publishing apart from writing, review, and the same rights on one's own pages only.
    { key: 'pages.publish', label: 'Publier les pages (publier, programmer, rendre privée)' },
    { key: 'pages.review', label: 'Relire les pages soumises (approuver ou renvoyer)' },
    { key: 'pages.manage_own', label: 'Écrire les brouillons de ses propres pages' },
    { key: 'pages.publish_own', label: 'Publier ses propres pages' },
  ],
};
