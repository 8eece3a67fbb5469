// The /admin area. Every URL under it, known or not, passes the guard first: without
// a session → the login page (the first-run form while no account exists), with a
// session lacking admin.access → 403. Each screen then checks its own permission.
// Modules add their screens behind it (registerAdmin); forms carry the same CSRF
// token as /auth (controllers/admin/shell.ts formChain).
import { Router } from 'express';
import type { Config } from '../lib/config.js';
import { showAdminLanding } from '../controllers/admin/landing.js';
import * as roles from '../controllers/admin/roles.js';
import { formChain } from '../controllers/admin/shell.js';
import * as userForms from '../controllers/admin/user-forms.js';
import * as users from '../controllers/admin/users.js';
import { NotFoundError } from '../lib/errors.js';
import { genericMessages } from '../middleware/error-handler.js';
import { provideCsrfToken } from '../middleware/csrf.js';
import { requirePermission } from '../middleware/require-auth.js';
import { profileRouter } from './account.js';

export function adminRouter(_config: Config): Router {
  const router = Router();
  router.use(requirePermission(), provideCsrfToken);
  // Ids in paths are plain decimal numbers; anything else is a page that does not exist.
  for (const name of ['id', 'roleId']) {
    router.param(name, (_req, _res, next, value: string) => {
      next(/^[1-9][0-9]{0,9}$/.test(value) && Number(value) <= 2_147_483_647 ? undefined : new NotFoundError(genericMessages.notFound));
    });
  }
  router.get('/', showAdminLanding);
  router.use('/profile', profileRouter());

  const viewUsers = requirePermission('users.view');
  const manageUsers = requirePermission('users.manage');
  const detail = users.showUserDetail;
  router.get('/users', viewUsers, users.showUserList);
  router.get('/users/new', manageUsers, (req, res) => users.showInviteForm(req, res));
  router.post('/users', ...formChain('invite', [manageUsers], users.inviteUser, users.showInviteForm));
  router.get('/users/:id', viewUsers, (req, res) => users.showUserDetail(req, res));
  router.post('/users/:id', ...formChain('edit', [manageUsers], userForms.saveUser, detail));
  router.post('/users/:id/verify', ...formChain('verify', [manageUsers], userForms.markUserVerified, detail));
  router.post('/users/:id/email', ...formChain('email', [manageUsers], userForms.saveUserEmail, detail));
  router.post('/users/:id/password', ...formChain('password', [manageUsers], userForms.saveUserPassword, detail));
  router.post('/users/:id/send-password-reset', ...formChain('password', [manageUsers], userForms.sendUserReset, detail));
  router.post('/users/:id/roles', ...formChain('roles', [manageUsers], userForms.assignUserRole, detail));
  router.post('/users/:id/roles/:roleId/delete', ...formChain('roles', [manageUsers], userForms.revokeUserRole, detail));

  const viewRoles = requirePermission('roles.view');
  const manageRoles = requirePermission('roles.manage');
  router.get('/roles', viewRoles, roles.showRoleList);
  router.get('/roles/new', manageRoles, (req, res) => roles.showNewRole(req, res));
  router.post('/roles', ...formChain('role', [manageRoles], roles.saveNewRole, roles.showNewRole));
  router.get('/roles/:id', viewRoles, (req, res) => roles.showRole(req, res));
  router.post('/roles/:id', ...formChain('role', [manageRoles], roles.saveRole, roles.showRole));
  router.get('/roles/:id/delete', manageRoles, (req, res) => roles.confirmDeleteRole(req, res));
  router.post('/roles/:id/delete', ...formChain('delete', [manageRoles], roles.removeRole, roles.confirmDeleteRole));
  return router;
}
