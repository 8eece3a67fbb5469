// /app/api/users: the profile routes first (their fixed segments must win over :id),
// then user management (SPEC A6).
import * as lifecycle from '../../controllers/api/lifecycle.js';
import * as passkeys from '../../controllers/api/passkeys.js';
import * as profile from '../../controllers/api/profile.js';
import * as twoFactor from '../../controllers/api/two-factor.js';
import * as users from '../../controllers/api/users.js';
import { idParams } from '../../lib/schema-primitives.js';
import { route, type AnyRoute } from '../define.js';
import * as passkeySchemas from './passkey-schemas.js';
import * as schemas from './schemas.js';

const PROFILE_PICTURE_FIELD = 'picture';

export const profileApiRoutes: AnyRoute[] = [
  route({ method: 'put', path: '/users/profile', access: 'user', body: schemas.profileBody, handler: profile.updateProfileHandler }),
  route({ method: 'delete', path: '/users/profile', access: 'user', body: schemas.deleteOwnAccountBody, handler: lifecycle.deleteOwnAccountHandler }),
  route({ method: 'get', path: '/users/profile/export', access: 'user', handler: lifecycle.exportOwnDataHandler }),
  route({ method: 'post', path: '/users/profile/email', access: 'user', body: schemas.profileEmailBody, handler: profile.startEmailChangeHandler }),
  // The link of EmailChangeConfirmEmail: the token is the proof, so it also works in
  // a browser where the account is not logged in (a phone's mail app, for instance).
  // Opening it changes nothing; its page's button posts the token (an HTML form, so the
  // row takes a form body too, and a refusal shows the page again).
  route({ method: 'get', path: '/users/email/confirm', access: 'anyone', query: schemas.confirmEmailQuery, handler: profile.showEmailConfirmHandler }),
  route({
    method: 'post',
    path: '/users/email/confirm',
    access: 'anyone',
    body: schemas.confirmEmailBody,
    form: { name: 'confirm', rerender: profile.rerenderEmailConfirmPage },
    handler: profile.confirmEmailChangeHandler,
  }),
  route({ method: 'post', path: '/users/profile/password', access: 'user', body: schemas.profilePasswordBody, handler: profile.changePasswordHandler }),
  route({ method: 'post', path: '/users/profile/picture', access: 'user', upload: { field: PROFILE_PICTURE_FIELD }, handler: profile.uploadPictureHandler }),
  route({ method: 'delete', path: '/users/profile/picture', access: 'user', handler: profile.deletePictureHandler }),
  route({ method: 'get', path: '/users/profile/sessions', access: 'user', handler: profile.listSessionsHandler }),
  route({ method: 'delete', path: '/users/profile/sessions', access: 'user', query: schemas.revokeSessionsQuery, handler: profile.revokeSessionsHandler }),
  route({ method: 'delete', path: '/users/profile/sessions/:sessionId', access: 'user', params: schemas.sessionParams, handler: profile.revokeSessionHandler }),
  // Two-step verification: status and enrolment stay reachable while a role requires it.
  route({ method: 'get', path: '/users/profile/2fa', access: 'user', duringEnrolment: true, handler: twoFactor.showTwoFactorHandler }),
  route({
    method: 'post',
    path: '/users/profile/2fa/setup',
    access: 'user',
    duringEnrolment: true,
    body: schemas.twoFactorSetupBody,
    handler: twoFactor.setupTwoFactorHandler,
  }),
  route({
    method: 'post',
    path: '/users/profile/2fa/enable',
    access: 'user',
    duringEnrolment: true,
    body: schemas.twoFactorEnableBody,
    handler: twoFactor.enableTwoFactorHandler,
  }),
  route({
    method: 'post',
    path: '/users/profile/2fa/recovery-codes',
    access: 'user',
    body: schemas.twoFactorCheckBody,
    handler: twoFactor.renewRecoveryCodesHandler,
  }),
  route({ method: 'delete', path: '/users/profile/2fa', access: 'user', body: schemas.twoFactorCheckBody, handler: twoFactor.disableTwoFactorHandler }),
  // Passkeys: the options (current password first), then the authenticator's answer.
  route({ method: 'get', path: '/users/profile/passkeys', access: 'user', handler: passkeys.listPasskeysHandler }),
  route({
    method: 'post',
    path: '/users/profile/passkeys/options',
    access: 'user',
    body: passkeySchemas.passkeyOptionsBody,
    handler: passkeys.passkeyOptionsHandler,
  }),
  route({ method: 'post', path: '/users/profile/passkeys', access: 'user', body: passkeySchemas.addPasskeyBody, handler: passkeys.addPasskeyHandler }),
  route({
    method: 'delete',
    path: '/users/profile/passkeys/:id',
    access: 'user',
    params: passkeySchemas.passkeyParams,
    body: passkeySchemas.removePasskeyBody,
    handler: passkeys.removePasskeyHandler,
  }),
  route({
    method: 'patch',
    path: '/users/profile/passkeys/:id',
    access: 'user',
    params: passkeySchemas.passkeyParams,
    body: passkeySchemas.renamePasskeyBody,
    handler: passkeys.renamePasskeyHandler,
  }),
];

const view = { permission: 'users.view' };
const manage = { permission: 'users.manage' };

export const userApiRoutes: AnyRoute[] = [
  route({ method: 'get', path: '/users', access: view, query: schemas.userListQuery, handler: users.listUsersHandler }),
  route({ method: 'post', path: '/users', access: manage, body: schemas.createUserBody, handler: users.createUserHandler }),
  route({ method: 'get', path: '/users/:id', access: view, params: idParams, handler: users.showUserHandler }),
  route({ method: 'put', path: '/users/:id', access: manage, params: idParams, body: schemas.updateUserBody, handler: users.updateUserHandler }),
  route({ method: 'put', path: '/users/:id/email', access: manage, params: idParams, body: schemas.emailBody, handler: users.changeUserEmailHandler }),
  route({ method: 'put', path: '/users/:id/password', access: manage, params: idParams, body: schemas.passwordBody, handler: users.setUserPasswordHandler }),
  route({ method: 'post', path: '/users/:id/send-password-reset', access: manage, params: idParams, handler: users.sendPasswordResetHandler }),
  route({ method: 'delete', path: '/users/:id', access: manage, params: idParams, handler: lifecycle.deleteUserHandler }),
  route({ method: 'post', path: '/users/:id/suspend', access: manage, params: idParams, body: schemas.suspendBody, handler: lifecycle.suspendUserHandler }),
  route({ method: 'delete', path: '/users/:id/suspend', access: manage, params: idParams, handler: lifecycle.restoreUserHandler }),
  // A new invitation (the previous link dies); /resend-invitation is its older name.
  route({
    method: 'post',
    path: ['/users/:id/invitation', '/users/:id/resend-invitation'],
    access: manage,
    params: idParams,
    handler: users.resendInvitationHandler,
  }),
  route({ method: 'delete', path: '/users/:id/2fa', access: manage, params: idParams, handler: twoFactor.resetTwoFactorHandler }),
  route({ method: 'get', path: '/users/:id/roles', access: view, params: idParams, handler: users.listUserRolesHandler }),
  route({ method: 'post', path: '/users/:id/roles', access: manage, params: idParams, body: schemas.assignRoleBody, handler: users.addUserRoleHandler }),
  route({ method: 'delete', path: '/users/:id/roles/:roleId', access: manage, params: schemas.userRoleParams, handler: users.removeUserRoleHandler }),
];
