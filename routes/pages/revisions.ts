// JSON rows of revisions, drafts and publishing (pages.view to read, pages.manage to
// write drafts, pages.publish to publish, schedule or cancel a schedule), mounted with the pages module's API rows.
import { idParams } from '../../lib/schema-primitives.js';
import * as revisions from '../../controllers/pages/admin-revisions.js';
import { publishBody, revisionListQuery, revisionParams } from '../../controllers/pages/revision-schemas.js';
import { draftBody } from '../../controllers/pages/schemas.js';
import { MANAGE_PAGE, PUBLISH_PAGE, VIEW_PAGES } from '../../controllers/pages/page-rights.js';
import { catalogFor, type PageCatalog } from '../../models/pages/catalog.js';
import { route, type AnyRoute } from '../define.js';

const VIEW = VIEW_PAGES;
const MANAGE = MANAGE_PAGE;

export function revisionApiRoutes(catalog: PageCatalog): AnyRoute[] {
  return [
    route({
      method: 'get',
      path: '/admin/pages/:id/revisions',
      access: VIEW,
      params: idParams,
      query: revisionListQuery,
      handler: revisions.listPageRevisions,
    }),
    route({ method: 'get', path: '/admin/pages/:id/revisions/:number', access: VIEW, params: revisionParams, handler: revisions.showPageRevision }),
    route({
      method: 'post',
      path: '/admin/pages/:id/revisions/:number/restore',
      access: MANAGE,
      params: revisionParams,
      handler: revisions.restorePageRevision,
    }),
    route({ method: 'get', path: '/admin/pages/:id/draft', access: VIEW, params: idParams, handler: revisions.showDraft }),
    route({
      method: 'put',
      path: '/admin/pages/:id/draft',
      access: MANAGE,
      params: idParams,
      body: draftBody(catalog),
      handler: async (call) => revisions.saveAdminDraft(await catalogFor(call.ctx, catalog), call),
    }),
    route({ method: 'delete', path: '/admin/pages/:id/draft', access: MANAGE, params: idParams, handler: revisions.discardAdminDraft }),
    route({
      method: 'post',
      path: '/admin/pages/:id/publish',
      access: PUBLISH_PAGE,
      params: idParams,
      body: publishBody,
      handler: async (call) => revisions.publishAdminDraft(await catalogFor(call.ctx, catalog), call),
    }),
    route({ method: 'delete', path: '/admin/pages/:id/schedule', access: PUBLISH_PAGE, params: idParams, handler: revisions.cancelAdminSchedule }),
  ];
}
