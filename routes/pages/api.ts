// JSON routes of the pages module on the /app/api router (SPEC B2, B3; DESIGN §3).
import type { Router } from 'express';
import { requirePermission } from '../../middleware/require-auth.js';
import { validate } from '../../middleware/validate.js';
import {
  createAdminPage,
  deleteAdminPage,
  duplicateAdminPage,
  listAdminPages,
  listAdminTemplates,
  showAdminPage,
  updateAdminPage,
} from '../../controllers/pages/admin-pages.js';
import { listPublicPages, showPublicPageByPath } from '../../controllers/pages/public-pages.js';
import {
  adminListQuery,
  byPathQuery,
  createPageBody,
  deleteQuery,
  idParams,
  publicListQuery,
  updatePageBody,
} from '../../controllers/pages/schemas.js';
import { registerMediaApi } from './media.js';

export function registerPagesApi(api: Router): void {
  const view = requirePermission('pages.view');
  const manage = requirePermission('pages.manage');

  api.get('/admin/pages', view, validate({ query: adminListQuery }), listAdminPages);
  api.post('/admin/pages', manage, validate({ body: createPageBody }), createAdminPage);
  api.get('/admin/pages/templates', view, listAdminTemplates);
  api.get('/admin/pages/:id', view, validate({ params: idParams }), showAdminPage);
  api.put('/admin/pages/:id', manage, validate({ params: idParams, body: updatePageBody }), updateAdminPage);
  api.post('/admin/pages/:id/duplicate', manage, validate({ params: idParams }), duplicateAdminPage);
  api.delete('/admin/pages/:id', manage, validate({ params: idParams, query: deleteQuery }), deleteAdminPage);
  registerMediaApi(api);

  // Public: no permission, public pages only.
  api.get('/pages/by-path', validate({ query: byPathQuery }), showPublicPageByPath);
  api.get('/pages', validate({ query: publicListQuery }), listPublicPages);
}
