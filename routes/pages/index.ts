// The pages module (SPEC B, DESIGN §2): its manifest (permission section, seeded by
// migrations/20261121000100_pages_tables.ts), its JSON routes on /app/api and its
// public site. Tables: models/pages/schema.ts (createTables/dropTables).
import type { SiteModule } from '../modules.js';
import { pagesManifest } from '../../models/pages/manifest.js';
import { registerPagesAdminScreens } from './admin-screens.js';
import { registerPagesApi } from './api.js';
import { registerPagesSite } from './site.js';

export const pagesModule: SiteModule = {
  manifest: pagesManifest,
  publicApiReads: ['/pages', '/pages/by-path'],
  registerApi: registerPagesApi,
  registerAdmin: registerPagesAdminScreens,
  registerSite: registerPagesSite,
};
