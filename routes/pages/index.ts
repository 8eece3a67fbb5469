// The pages module (SPEC B, DESIGN §2), declared through one register() call: its
// permission section, its migrations, its admin screens, and its rows on the API, the
// administration and the public site. Its templates and block types live in one
// catalog created here, per application, and handed to the rows that need it; nothing
// outside this folder and models/controllers/views of the module knows more of it.
import { createSampleSite } from '../../services/pages-sample-site.js';
import { DEFAULT_SITEMAP_OPTIONS, type SitemapOptions } from '../../controllers/pages/sitemap.js';
import { DEFAULT_TREE_OPTIONS, type TreeOptions } from '../../controllers/pages/admin-screens-tree.js';
import { moduleMigrationsDirectory } from '../../lib/migrations.js';
import type { SiteModule } from '../../lib/modules.js';
import { moduleViewsDirectory } from '../../lib/views.js';
import { createPageCatalog } from '../../models/pages/catalog.js';
import { SITEMAP_MAX_URLS } from '../../models/pages/sitemap.js';
import { PAGES_PERMISSION_SECTION } from '../../models/pages/manifest.js';
import { PAGES_FIELD_LABELS } from '../../controllers/pages/messages.js';
import { PAGES_DASHBOARD } from '../../controllers/pages/dashboard.js';
import { PAGES_AUDIT_ACTIONS, PAGES_AUDIT_TARGETS } from '../../controllers/pages/audit-actions.js';
import { pagesAdminRoutes } from './admin-screens.js';
import { pagesApiRoutes } from './api.js';
import { reviewAdminRoutes, reviewApiRoutes } from './reviews.js';
import { REVIEW_AUDIT_ACTIONS, REVIEW_DASHBOARD } from '../../controllers/pages/review-dashboard.js';
import { startRevisionRetention } from '../../services/revision-retention.js';
import { startScheduledPublishing } from '../../services/scheduled-publishing.js';
import { startMediaRenditions } from '../../services/pages-media-renditions.js';
import { installPageViewHelpers } from '../../services/pages-view-helpers.js';
import { pagesSiteRoutes } from './site.js';
import { grantAdminRoutes, grantApiRoutes } from './grants.js';
import { GRANT_AUDIT_ACTIONS } from '../../controllers/pages/grant-audit.js';
import { SCOPED_PERMISSIONS_SQL } from '../../models/pages/grants.js';

/** Sizes a site (or a test, with small ones) may choose; the defaults suit any site. */
export interface PagesModuleOptions {
  sitemap?: Partial<SitemapOptions>;
  tree?: Partial<TreeOptions>;
}

function checkOption(name: string, value: number, min: number, max: number, integer = true): void {
  if (!(value >= min && value <= max) || (integer && !Number.isInteger(value))) {
    throw new Error(`pages module: ${name} must be ${integer ? 'an integer ' : ''}between ${min} and ${max} (got ${value})`);
  }
}

export function createPagesModule(options: PagesModuleOptions = {}): SiteModule {
  const sitemap = { ...DEFAULT_SITEMAP_OPTIONS, ...options.sitemap };
  const tree = { ...DEFAULT_TREE_OPTIONS, ...options.tree };
  checkOption('sitemap.perFile', sitemap.perFile, 1, SITEMAP_MAX_URLS);
  checkOption('sitemap.batchSize', sitemap.batchSize, 1, 10_000);
  checkOption('sitemap.concurrency', sitemap.concurrency, 1, 64);
  checkOption('sitemap.duty', sitemap.duty, 0.01, 1, false);
  checkOption('tree.pageSize', tree.pageSize, 1, 500);
  checkOption('tree.pickerSize', tree.pickerSize, 1, 100);
  return {
    name: 'pages',
    register(site) {
      const catalog = createPageCatalog();
      site.permissionSection(PAGES_PERMISSION_SECTION);
      site.migrations(moduleMigrationsDirectory('pages'));
      site.views(moduleViewsDirectory('pages'));
      site.adminScreen('pages', { href: '/admin/pages', label: 'Pages', permission: 'pages.view', scoped: true });
      site.adminScreen('pages', { href: '/admin/media', label: 'Médiathèque', permission: 'pages.manage' });
      site.adminScreen('pages', { href: '/admin/redirects', label: 'Redirections', permission: 'pages.view' });
      site.adminScreen('pages', { href: '/admin/menus', label: 'Menus', permission: 'menus.manage' });
      site.apiRoutes(pagesApiRoutes(catalog));
      site.apiRoutes(reviewApiRoutes(catalog));
      site.adminRoutes(pagesAdminRoutes(catalog, tree));
      site.adminRoutes(reviewAdminRoutes(catalog));
      site.siteRoutes(pagesSiteRoutes(catalog, sitemap));
      // Grants on sections of the tree: rows of their own, and what a session's user holds through them.
      site.apiRoutes(grantApiRoutes());
      site.adminRoutes(grantAdminRoutes());
      site.auditActions(GRANT_AUDIT_ACTIONS);
      site.scopedPermissions(SCOPED_PERMISSIONS_SQL);
      site.backgroundJob({ name: 'scheduled publishing', start: (ctx) => startScheduledPublishing(ctx, { catalog }) });
      site.backgroundJob({ name: 'revision retention', start: startRevisionRetention });
      site.backgroundJob({ name: 'media renditions', start: (ctx) => startMediaRenditions(ctx) });
      site.fieldLabels(PAGES_FIELD_LABELS);
      site.auditActions(PAGES_AUDIT_ACTIONS);
      site.auditTargets(PAGES_AUDIT_TARGETS);
      site.dashboard(PAGES_DASHBOARD);
      site.auditActions(REVIEW_AUDIT_ACTIONS);
      site.dashboard(REVIEW_DASHBOARD);
      site.viewHelpers(installPageViewHelpers);
      site.firstRunChoice({
        field: 'sample_site',
        label: 'Commencer avec un site d’exemple',
        hint: 'Une page d’accueil, une rubrique de trois guides illustrée et un menu, publiés tout de suite ; le tableau de bord les supprime en une fois.',
        apply: createSampleSite,
      });
    },
  };
}

export const pagesModule: SiteModule = createPagesModule();
