// The /admin area. Every URL under it, known or not, passes the guard first: without
// a session → the login page (the first-run form while no account exists), with a
// session lacking admin.access → 403. Each row then checks its own permission. The
// rows are the core's (coreAdminRoutes, registered by routes/core-module.ts) and the
// modules' (ctx.site.adminRoutes); the profile rows are mounted at /admin/profile.
import { Router, type RequestHandler } from 'express';
import { showAdminLanding } from '../controllers/admin/landing.js';
import * as roles from '../controllers/admin/roles.js';
import * as forms from '../controllers/admin/schemas.js';
import * as twoFactor from '../controllers/admin/two-factor.js';
import * as userForms from '../controllers/admin/user-forms.js';
import * as lifecycle from '../controllers/admin/user-lifecycle.js';
import * as users from '../controllers/admin/users.js';
import type { AppContext } from '../lib/context.js';
import { NotFoundError } from '../lib/errors.js';
import { idParam } from '../lib/schema-primitives.js';
import { createCsrf } from '../middleware/csrf.js';
import { notFound } from '../middleware/error-handler.js';
import { requirePermission } from '../middleware/require-auth.js';
import { letLostFormsThrough, refuseLostForms, restoreFormDraft } from './lost-session.js';
import { profileRoutes } from './account.js';
import { adminSurface } from './admin-surface.js';
import { builtOnFirstRequest, checkRows, mountRoutes, route, type AnyRoute } from './define.js';
import { genericMessages } from '../lib/messages.js';

const dashboard = { permission: 'admin.access' };
const viewUsers = { permission: 'users.view' };
const manageUsers = { permission: 'users.manage' };
const viewRoles = { permission: 'roles.view' };
const manageRoles = { permission: 'roles.manage' };

const detail = users.showUserDetail;
const { idParams } = forms;

export const coreAdminRoutes: AnyRoute[] = [
  route({ method: 'get', path: '/', access: dashboard, handler: showAdminLanding }),

  route({ method: 'get', path: '/users', access: viewUsers, query: forms.userListQuery, handler: users.showUserList }),
  route({ method: 'get', path: '/users/new', access: manageUsers, handler: (call) => users.showInviteForm(call) }),
  route({
    method: 'post',
    path: '/users',
    access: manageUsers,
    body: forms.inviteUserForm,
    form: { name: 'invite', rerender: users.showInviteForm },
    handler: users.saveInvitation,
  }),
  route({ method: 'get', path: '/users/:id', access: viewUsers, params: idParams, handler: (call) => detail(call) }),
  route({
    method: 'post',
    path: '/users/:id',
    access: manageUsers,
    params: idParams,
    body: forms.editUserForm,
    form: { name: 'edit', rerender: detail },
    handler: userForms.saveUser,
  }),
  route({
    method: 'post',
    path: '/users/:id/verify',
    access: manageUsers,
    params: idParams,
    form: { name: 'verify', rerender: detail },
    handler: userForms.markUserVerified,
  }),
  route({
    method: 'post',
    path: '/users/:id/email',
    access: manageUsers,
    params: idParams,
    body: forms.userEmailForm,
    form: { name: 'email', rerender: detail },
    handler: userForms.changeUserEmail,
  }),
  route({
    method: 'post',
    path: '/users/:id/password',
    access: manageUsers,
    params: idParams,
    body: forms.userPasswordForm,
    form: { name: 'password', rerender: detail },
    handler: userForms.saveUserPassword,
  }),
  route({
    method: 'post',
    path: '/users/:id/send-password-reset',
    access: manageUsers,
    params: idParams,
    form: { name: 'password', rerender: detail },
    handler: userForms.sendUserReset,
  }),
  route({
    method: 'post',
    path: '/users/:id/resend-invitation',
    access: manageUsers,
    params: idParams,
    form: { name: 'invitation', rerender: detail },
    handler: userForms.resendUserInvitation,
  }),
  route({
    method: 'post',
    path: '/users/:id/2fa/delete',
    access: manageUsers,
    params: idParams,
    form: { name: 'two-factor', rerender: detail },
    handler: twoFactor.resetUserTwoFactor,
  }),
  // Suspension and deletion: a confirmation page each (no JavaScript), then the form.
  route({ method: 'get', path: '/users/:id/suspend', access: manageUsers, params: idParams, handler: (call) => lifecycle.confirmSuspendUser(call) }),
  route({
    method: 'post',
    path: '/users/:id/suspend',
    access: manageUsers,
    params: idParams,
    body: forms.suspendUserForm,
    form: { name: 'suspend', rerender: lifecycle.confirmSuspendUser },
    handler: lifecycle.suspendUserFromForm,
  }),
  route({
    method: 'post',
    path: '/users/:id/restore',
    access: manageUsers,
    params: idParams,
    form: { name: 'status', rerender: detail },
    handler: lifecycle.restoreUserFromForm,
  }),
  route({ method: 'get', path: '/users/:id/delete', access: manageUsers, params: idParams, handler: (call) => lifecycle.confirmDeleteUser(call) }),
  route({
    method: 'post',
    path: '/users/:id/delete',
    access: manageUsers,
    params: idParams,
    form: { name: 'delete', rerender: lifecycle.confirmDeleteUser },
    handler: lifecycle.deleteUserFromForm,
  }),
  route({
    method: 'post',
    path: '/users/:id/roles',
    access: manageUsers,
    params: idParams,
    body: forms.assignRoleForm,
    form: { name: 'roles', rerender: detail },
    handler: userForms.assignUserRole,
  }),
  route({
    method: 'post',
    path: '/users/:id/roles/:roleId/delete',
    access: manageUsers,
    params: forms.userRoleParams,
    form: { name: 'roles', rerender: detail },
    handler: userForms.revokeUserRole,
  }),

  route({ method: 'get', path: '/roles', access: viewRoles, handler: roles.showRoleList }),
  route({ method: 'get', path: '/roles/new', access: manageRoles, handler: (call) => roles.showNewRole(call) }),
  route({
    method: 'post',
    path: '/roles',
    access: manageRoles,
    body: forms.newRoleForm,
    form: { name: 'role', rerender: roles.showNewRole },
    handler: roles.saveNewRole,
  }),
  route({ method: 'get', path: '/roles/:id', access: viewRoles, params: idParams, handler: (call) => roles.showRole(call) }),
  route({
    method: 'post',
    path: '/roles/:id',
    access: manageRoles,
    params: idParams,
    body: forms.roleForm,
    form: { name: 'role', rerender: roles.showRole },
    handler: roles.saveRole,
  }),
  route({ method: 'get', path: '/roles/:id/delete', access: manageRoles, params: idParams, handler: (call) => roles.confirmDeleteRole(call) }),
  route({
    method: 'post',
    path: '/roles/:id/delete',
    access: manageRoles,
    params: idParams,
    form: { name: 'delete', rerender: roles.confirmDeleteRole },
    handler: roles.removeRole,
  }),
];

// An id in an /admin path that is not plain decimal digits names no page: 404, as an
// unknown id does (the JSON API answers 400 for the same input).
function idsAreNumbers(router: Router): void {
  for (const name of ['id', 'roleId']) {
    router.param(name, (_req, _res, next, value: string) => {
      next(idParam.validate(value).error ? new NotFoundError(genericMessages.notFound) : undefined);
    });
  }
}

/** /admin's router, built by its first request (routes/define.ts builtOnFirstRequest). */
export function adminRouter(ctx: AppContext, session: RequestHandler[]): RequestHandler {
  const csrf = createCsrf(ctx);
  const surface = adminSurface(ctx, csrf);
  const rows = ctx.site.adminRoutes;
  checkRows(surface, [...profileRoutes, ...rows]);
  return builtOnFirstRequest(() => {
    const router = Router();
    router.use(...session, letLostFormsThrough(requirePermission()), csrf.provideToken, restoreFormDraft(ctx));
    idsAreNumbers(router);
    const profile = Router();
    mountRoutes(profile, ctx, surface, profileRoutes);
    router.use('/profile', profile);
    mountRoutes(router, ctx, surface, rows);
    router.use(refuseLostForms, notFound);
    return router;
  });
}
