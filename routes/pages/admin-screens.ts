// The pages module's screens under /admin (behind the admin guard), mounted through
// the module's registerAdmin hook, and their entries in the admin navigation.
import type { Request, Router } from 'express';
import { formChain, registerAdminScreen, uploadFormChain } from '../../controllers/admin/shell.js';
import * as blocks from '../../controllers/pages/admin-screens-blocks.js';
import * as media from '../../controllers/pages/admin-screens-media.js';
import * as pages from '../../controllers/pages/admin-screens.js';
import { parseImageUpload } from '../../lib/uploads.js';
import { requirePermission } from '../../middleware/require-auth.js';

export function registerPagesAdminScreens(admin: Router): void {
  registerAdminScreen('pages', { href: '/admin/pages', label: 'Pages', permission: 'pages.view' });
  registerAdminScreen('pages', { href: '/admin/media', label: 'Médiathèque', permission: 'pages.manage' });
  const view = requirePermission('pages.view');
  const manage = requirePermission('pages.manage');
  const edit = pages.showEditPage;

  admin.get('/pages', view, pages.showPageTree);
  admin.get('/pages/new', manage, (req, res) => pages.showNewPage(req, res));
  admin.post('/pages', ...formChain('page', [manage], pages.saveNewPage, pages.showNewPage));
  admin.get('/pages/:id', view, (req, res) => pages.showEditPage(req, res));
  admin.post('/pages/:id', ...formChain('page', [manage], pages.savePage, edit));
  admin.post('/pages/:id/duplicate', ...formChain('duplicate', [manage], pages.duplicate, edit));
  admin.get('/pages/:id/delete', manage, (req, res) => pages.confirmDeletePage(req, res));
  admin.post('/pages/:id/delete', ...formChain('delete', [manage], pages.removePage, pages.confirmDeletePage));
  admin.post('/pages/:id/blocks', ...formChain('add-block', [manage], blocks.addBlock, edit));
  const blockForm = (req: Request) => `block-${req.params.index}`;
  admin.post('/pages/:id/blocks/:index', ...formChain(blockForm, [manage], blocks.saveBlock, edit));
  admin.post('/pages/:id/blocks/:index/move', ...formChain(blockForm, [manage], blocks.moveBlock, edit));
  admin.post('/pages/:id/blocks/:index/delete', ...formChain(blockForm, [manage], blocks.removeBlock, edit));

  admin.get('/media', manage, (req, res) => media.showMediaLibrary(req, res));
  admin.post('/media', ...uploadFormChain('upload', [manage], parseImageUpload('file'), media.uploadMediaForm, media.showMediaLibrary));
  admin.get('/media/:id', manage, (req, res) => media.showMediaItem(req, res));
  admin.post('/media/:id', ...formChain('media', [manage], media.saveMediaItem, media.showMediaItem));
  admin.post('/media/:id/delete', ...formChain('delete', [manage], media.deleteMediaItem, media.showMediaItem));
}
