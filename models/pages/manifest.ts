// The pages module's manifest (DESIGN §2): its permission section, seeded by its own
// migration after the core sections, and the templates it ships.
import type { PermissionSectionSeed } from '../auth/schema.js';

export const PAGES_PERMISSION_SECTION: PermissionSectionSeed = {
  key: 'pages',
  label: 'Pages',
  position: 100,
  permissions: [
    { key: 'pages.view', label: 'Consulter les pages' },
    { key: 'pages.manage', label: 'Gérer les pages et les médias' },
  ],
};

export const pagesManifest = {
  name: 'pages',
  permissionSections: [PAGES_PERMISSION_SECTION],
};
