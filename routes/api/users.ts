// /app/api/users: the profile routes first (their fixed segments must win over :id),
// then user management (SPEC A6).
import * as profile from '../../controllers/api/profile.js';
import * as users from '../../controllers/api/users.js';
import { parseImageUpload } from '../../lib/uploads.js';
import { validate } from '../../middleware/validate.js';
import * as schemas from './schemas.js';
import type { ApiRoute } from './table.js';

export const PROFILE_PICTURE_PATH = '/users/profile/picture';
export const PROFILE_PICTURE_FIELD = 'picture';

export const profileRoutes: ApiRoute[] = [
  { method: 'put', path: '/users/profile', access: 'user', handlers: [validate({ query: schemas.noQuery, body: schemas.profileBody }), profile.updateProfileHandler] },
  { method: 'post', path: '/users/profile/email', access: 'user', handlers: [validate({ query: schemas.noQuery, body: schemas.profileEmailBody }), profile.startEmailChangeHandler] },
  // The link of EmailChangeConfirmEmail: the token is the proof, so it also works in
  // a browser where the account is not logged in (a phone's mail app, for instance).
  { method: 'get', path: '/users/email/confirm', access: 'token', handlers: [validate({ query: schemas.confirmEmailQuery }), profile.confirmEmailChangeHandler] },
  { method: 'post', path: '/users/profile/password', access: 'user', handlers: [validate({ query: schemas.noQuery, body: schemas.profilePasswordBody }), profile.changePasswordHandler] },
  { method: 'post', path: PROFILE_PICTURE_PATH, access: 'user', handlers: [validate({ query: schemas.noQuery }), parseImageUpload(PROFILE_PICTURE_FIELD), profile.uploadPictureHandler] },
  { method: 'delete', path: PROFILE_PICTURE_PATH, access: 'user', handlers: [validate({ query: schemas.noQuery, body: schemas.noBody }), profile.deletePictureHandler] },
  { method: 'get', path: '/users/profile/sessions', access: 'user', handlers: [validate({ query: schemas.noQuery }), profile.listSessionsHandler] },
  { method: 'delete', path: '/users/profile/sessions', access: 'user', handlers: [validate({ query: schemas.revokeSessionsQuery, body: schemas.noBody }), profile.revokeSessionsHandler] },
  { method: 'delete', path: '/users/profile/sessions/:sessionId', access: 'user', handlers: [validate({ params: schemas.sessionParams, query: schemas.noQuery, body: schemas.noBody }), profile.revokeSessionHandler] },
];

const view = { permission: 'users.view' };
const manage = { permission: 'users.manage' };

export const userRoutes: ApiRoute[] = [
  { method: 'get', path: '/users', access: view, handlers: [validate({ query: schemas.userListQuery }), users.listUsersHandler] },
  { method: 'post', path: '/users', access: manage, handlers: [validate({ query: schemas.noQuery, body: schemas.createUserBody }), users.createUserHandler] },
  { method: 'get', path: '/users/:id', access: view, handlers: [validate({ params: schemas.idParams, query: schemas.noQuery }), users.showUserHandler] },
  { method: 'put', path: '/users/:id', access: manage, handlers: [validate({ params: schemas.idParams, query: schemas.noQuery, body: schemas.updateUserBody }), users.updateUserHandler] },
  { method: 'put', path: '/users/:id/email', access: manage, handlers: [validate({ params: schemas.idParams, query: schemas.noQuery, body: schemas.emailBody }), users.setUserEmailHandler] },
  { method: 'put', path: '/users/:id/password', access: manage, handlers: [validate({ params: schemas.idParams, query: schemas.noQuery, body: schemas.passwordBody }), users.setUserPasswordHandler] },
  { method: 'post', path: '/users/:id/send-password-reset', access: manage, handlers: [validate({ params: schemas.idParams, query: schemas.noQuery, body: schemas.noBody }), users.sendPasswordResetHandler] },
  { method: 'get', path: '/users/:id/roles', access: view, handlers: [validate({ params: schemas.idParams, query: schemas.noQuery }), users.listUserRolesHandler] },
  { method: 'post', path: '/users/:id/roles', access: manage, handlers: [validate({ params: schemas.idParams, query: schemas.noQuery, body: schemas.assignRoleBody }), users.addUserRoleHandler] },
  { method: 'delete', path: '/users/:id/roles/:roleId', access: manage, handlers: [validate({ params: schemas.userRoleParams, query: schemas.noQuery, body: schemas.noBody }), users.removeUserRoleHandler] },
];
