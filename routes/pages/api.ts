// JSON rows of the pages module on /app/api (SPEC B2, B3; DESIGN §3). The admin rows
// need pages.view, or pages.manage (pages.manage_own on one's own pages) and for a live
// change pages.publish (controllers/pages/page-rights.ts), and admin.access; the public reads are declared
// 'public', so they run without any session lookup.
import * as sampleContent from '../../controllers/pages/sample-content.js';
import { idParams } from '../../lib/schema-primitives.js';
import * as admin from '../../controllers/pages/admin-pages.js';
import * as presence from '../../controllers/pages/presence.js';
import * as preview from '../../controllers/pages/preview.js';
import * as publicPages from '../../controllers/pages/public-pages.js';
import { adminListQuery, byPathQuery, createPageBody, deleteQuery, publicListQuery, searchApiQuery, updatePageBody } from '../../controllers/pages/schemas.js';
import { CREATE_PAGE, MANAGE_PAGE, VIEW_PAGES } from '../../controllers/pages/page-rights.js';
import { searchPagesApi } from '../../controllers/pages/search.js';
import { catalogFor, type PageCatalog } from '../../models/pages/catalog.js';
import { route, type AnyRoute } from '../define.js';
import { mediaApiRoutes } from './media.js';
import { menuApiRoutes } from './menus.js';
import { redirectApiRoutes } from './redirects.js';
import { revisionApiRoutes } from './revisions.js';

const VIEW = VIEW_PAGES;

export function pagesApiRoutes(catalog: PageCatalog): AnyRoute[] {
  return [
    route({ method: 'get', path: '/admin/pages', access: VIEW, query: adminListQuery, handler: admin.listAdminPages }),
    route({
      method: 'post',
      path: '/admin/pages',
      access: CREATE_PAGE,
      body: createPageBody(catalog),
      handler: async (call) => admin.createAdminPage(await catalogFor(call.ctx, catalog), call),
    }),
    // Before /:id, which would read `templates` as an id.
    route({
      method: 'get',
      path: '/admin/pages/templates',
      access: VIEW,
      handler: async (call) => admin.listAdminTemplates(await catalogFor(call.ctx, catalog), call),
    }),
    route({ method: 'get', path: '/admin/pages/presence', access: VIEW, handler: presence.listPresence }),
    route({ method: 'get', path: '/admin/pages/:id', access: VIEW, params: idParams, handler: admin.showAdminPage }),
    route({
      method: 'put',
      path: '/admin/pages/:id',
      access: MANAGE_PAGE,
      params: idParams,
      body: updatePageBody(catalog),
      handler: async (call) => admin.updateAdminPage(await catalogFor(call.ctx, catalog), call),
    }),
    // Presence: the editor's heartbeat, and who else has the page open (no lock: merging protects).
    route({ method: 'post', path: '/admin/pages/:id/presence', access: MANAGE_PAGE, params: idParams, handler: presence.heartbeat }),
    route({ method: 'get', path: '/admin/pages/:id/presence', access: VIEW, params: idParams, handler: presence.showPresence }),
    route({ method: 'post', path: '/admin/pages/:id/duplicate', access: CREATE_PAGE, params: idParams, handler: admin.duplicateAdminPage }),
    route({
      method: 'post',
      path: '/admin/pages/:id/preview-link',
      access: MANAGE_PAGE,
      params: idParams,
      body: preview.previewLinkBody,
      handler: preview.createPreviewLinkAnswer,
    }),
    // Same permission as making a link: whoever can let a draft out can call it back.
    route({ method: 'delete', path: '/admin/pages/:id/preview-links', access: MANAGE_PAGE, params: idParams, handler: preview.revokePreviewLinksAnswer }),
    ...revisionApiRoutes(catalog),
    route({ method: 'delete', path: '/admin/pages/:id', access: MANAGE_PAGE, params: idParams, query: deleteQuery, handler: admin.deleteAdminPage }),
    ...mediaApiRoutes(),
    ...redirectApiRoutes(),
    ...menuApiRoutes(),
    route({ method: 'delete', path: '/admin/sample-content', access: { permission: 'pages.manage' }, handler: sampleContent.deleteSampleContent }),
    route({ method: 'get', path: '/pages/by-path', access: 'public', query: byPathQuery, handler: publicPages.showPublicPageByPath }),
    route({ method: 'get', path: '/pages', access: 'public', query: publicListQuery, handler: publicPages.listPublicPages }),
    route({ method: 'get', path: '/pages/search', access: 'public', query: searchApiQuery, handler: searchPagesApi }),
  ];
}
