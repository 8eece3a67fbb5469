import type { SiteModule } from '../modules.js';

// The pages module (issue: pages module). Placeholder wiring until it lands.
export const pagesModule: SiteModule = {
  manifest: { name: 'pages', permissionSections: [] },
  registerApi() {},
};
