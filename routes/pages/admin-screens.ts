// The pages module's screens under /admin (behind the admin guard and its CSRF check).
// Each form row names the page that re-renders, with the messages and the input kept,
// when the rules refuse a submission.
import * as sampleContent from '../../controllers/pages/sample-content.js';
import { pageParams } from '../../controllers/pages/admin-call.js';
import * as editor from '../../controllers/pages/admin-screens-editor.js';
import { FILE_FIELD } from '../../controllers/pages/admin-screens-editor-images.js';
import { renderLivePreview } from '../../controllers/pages/admin-screens-live-preview.js';
import * as access from '../../controllers/pages/admin-screens-access.js';
import * as revisions from '../../controllers/pages/admin-screens-revisions.js';
import { candidatesQuery, listParentCandidates } from '../../controllers/pages/admin-parent-picker.js';
import { showPageTree, treeQuery, type TreeOptions } from '../../controllers/pages/admin-screens-tree.js';
import * as media from '../../controllers/pages/admin-screens-media.js';
import * as pages from '../../controllers/pages/admin-screens.js';
import { menuAdminRoutes } from './menus.js';
import { redirectAdminRoutes } from './redirects.js';
import { CREATE_PAGE, MANAGE_PAGE, PUBLISH_PAGE, VIEW_PAGES } from '../../controllers/pages/page-rights.js';
import { catalogFor, type PageCatalog } from '../../models/pages/catalog.js';
import { route, type AnyCall, type AnyRoute, type FormLocals } from '../define.js';

const VIEW = VIEW_PAGES;
const MANAGE = { permission: 'pages.manage' } as const;

export function pagesAdminRoutes(catalog: PageCatalog, tree: TreeOptions): AnyRoute[] {
  const edit = async (call: AnyCall, locals: FormLocals, status: number) => editor.showEditor(await catalogFor(call.ctx, catalog), tree, call, locals, status);
  return [
    route({ method: 'get', path: '/pages', access: VIEW, query: treeQuery, handler: (call) => showPageTree(tree, call) }),
    route({
      method: 'get',
      path: '/pages/new',
      access: CREATE_PAGE,
      query: pages.newPageQuery,
      handler: async (call) => pages.showNewPage(await catalogFor(call.ctx, catalog), tree, call),
    }),
    // Before /pages/:id, which would read `parent-candidates` as an id.
    route({
      method: 'get',
      path: '/pages/parent-candidates',
      access: CREATE_PAGE,
      query: candidatesQuery,
      handler: (call) => listParentCandidates(tree, call),
    }),
    route({
      method: 'post',
      path: '/pages',
      access: CREATE_PAGE,
      body: pages.pageForm,
      form: { name: 'page', rerender: async (call, locals, status) => pages.showNewPage(await catalogFor(call.ctx, catalog), tree, call, locals, status) },
      handler: async (call) => pages.saveNewPage(await catalogFor(call.ctx, catalog), call),
    }),
    route({
      method: 'get',
      path: '/pages/:id',
      access: VIEW,
      params: pageParams,
      query: editor.editorQuery,
      handler: async (call) => editor.showEditor(await catalogFor(call.ctx, catalog), tree, call),
    }),
    // The one-document editor: every button of the form posts here (admin-screens-editor.ts).
    // It posts a whole page (its fields and every block, up to 500): a long page passes
    // the other forms' limits, and a refusal would lose it all.
    route({
      method: 'post',
      path: '/pages/:id',
      access: MANAGE_PAGE,
      params: pageParams,
      bodyLimit: '2mb',
      fieldLimit: 5000,
      // Without JavaScript the form is multipart, an image block's file among its fields.
      formImages: { field: FILE_FIELD, maxFiles: 20, fields: 5000, fieldSize: 2_000_000 },
      body: editor.documentForm,
      form: { name: 'page', rerender: async (call, locals, status) => editor.rerenderEditor(await catalogFor(call.ctx, catalog), tree, call, locals, status) },
      handler: async (call) => editor.saveDocument(await catalogFor(call.ctx, catalog), call),
    }),
    // The editor's live preview: the unsaved form rendered as the site would (nothing saved).
    route({
      method: 'post',
      path: '/pages/:id/live-preview',
      access: MANAGE_PAGE,
      params: pageParams,
      bodyLimit: '2mb',
      fieldLimit: 5000,
      handler: async (call) => renderLivePreview(await catalogFor(call.ctx, catalog), call),
    }),
    route({
      method: 'post',
      path: '/pages/:id/preview',
      access: MANAGE_PAGE,
      params: pageParams,
      form: { name: 'preview', rerender: edit },
      handler: editor.previewPage,
    }),
    route({
      method: 'post',
      path: '/pages/:id/preview-links/revoke',
      access: MANAGE_PAGE,
      params: pageParams,
      form: { name: 'revoke-previews', rerender: edit },
      handler: editor.revokePreviews,
    }),
    route({
      method: 'get',
      path: '/pages/:id/revisions',
      access: VIEW,
      params: pageParams,
      query: revisions.revisionsQuery,
      handler: (call) => revisions.showRevisions(call),
    }),
    route({
      method: 'get',
      path: '/pages/:id/revisions/compare',
      access: VIEW,
      params: pageParams,
      query: revisions.compareQuery,
      handler: async (call) => revisions.compareRevisions(await catalogFor(call.ctx, catalog), call),
    }),
    route({
      method: 'post',
      path: '/pages/:id/revisions/:number/restore',
      access: MANAGE_PAGE,
      params: revisions.revisionParams,
      form: { name: 'restore', rerender: (call, locals, status) => revisions.showRevisions(call, locals, status) },
      handler: revisions.restore,
    }),
    route({
      method: 'post',
      path: '/pages/:id/duplicate',
      access: CREATE_PAGE,
      params: pageParams,
      form: { name: 'duplicate', rerender: edit },
      handler: pages.duplicate,
    }),
    route({
      method: 'post',
      path: '/pages/:id/access',
      access: PUBLISH_PAGE,
      params: pageParams,
      body: access.accessForm,
      form: { name: 'access', rerender: edit },
      handler: access.saveAccess,
    }),
    route({ method: 'get', path: '/pages/:id/delete', access: MANAGE_PAGE, params: pageParams, handler: (call) => pages.confirmDeletePage(call) }),
    route({
      method: 'post',
      path: '/pages/:id/delete',
      access: MANAGE_PAGE,
      params: pageParams,
      body: pages.deleteForm,
      form: { name: 'delete', rerender: pages.confirmDeletePage },
      handler: pages.removePage,
    }),
    route({ method: 'get', path: '/sample-content/delete', access: MANAGE, handler: (call) => sampleContent.confirmSampleContentRemoval(call) }),
    route({
      method: 'post',
      path: '/sample-content/delete',
      access: MANAGE,
      body: sampleContent.sampleDeleteForm,
      form: { name: 'sample-delete', rerender: sampleContent.confirmSampleContentRemoval },
      handler: sampleContent.removeSampleContentScreen,
    }),
    ...redirectAdminRoutes(),
    ...menuAdminRoutes(tree),
    route({ method: 'get', path: '/media', access: MANAGE, query: media.mediaLibraryQuery, handler: (call) => media.showMediaLibrary(call) }),
    route({
      method: 'post',
      path: '/media',
      access: MANAGE,
      upload: { field: 'file', limit: 'media' },
      body: media.mediaForm,
      form: { name: 'upload', rerender: media.showMediaLibrary },
      handler: media.uploadMediaForm,
    }),
    route({ method: 'get', path: '/media/:id', access: MANAGE, params: pageParams, handler: (call) => media.showMediaItem(call) }),
    route({
      method: 'post',
      path: '/media/:id',
      access: MANAGE,
      params: pageParams,
      body: media.mediaForm,
      form: { name: 'media', rerender: media.showMediaItem },
      handler: media.saveMediaItem,
    }),
    route({
      method: 'post',
      path: '/media/:id/delete',
      access: MANAGE,
      params: pageParams,
      form: { name: 'delete', rerender: media.showMediaItem },
      handler: media.deleteMediaItem,
    }),
  ];
}
