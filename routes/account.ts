// /account: the profile page of any logged-in user (no admin.access needed). The same
// rows are mounted at /admin/profile inside the admin guard (routes/admin.ts); the
// forms post back to whichever prefix showed them.
import { Router, type RequestHandler } from 'express';
import * as profile from '../controllers/account/profile.js';
import * as forms from '../controllers/admin/schemas.js';
import type { AppContext } from '../lib/context.js';
import { createCsrf } from '../middleware/csrf.js';
import { notFound } from '../middleware/error-handler.js';
import { requireUser } from '../middleware/require-auth.js';
import { adminSurface } from './admin-surface.js';
import { mountRoutes, route, type AnyRoute } from './define.js';

const page = profile.showProfile;

export const profileRoutes: AnyRoute[] = [
  route({ method: 'get', path: '/', access: 'user', handler: (call) => profile.showProfile(call) }),
  route({ method: 'post', path: '/name', access: 'user', body: forms.profileNameForm, form: { name: 'name', rerender: page }, handler: profile.saveName }),
  route({
    method: 'post',
    path: '/email',
    access: 'user',
    body: forms.profileEmailForm,
    form: { name: 'email', rerender: page },
    handler: profile.startAddressChange,
  }),
  route({
    method: 'post',
    path: '/password',
    access: 'user',
    body: forms.profilePasswordForm,
    form: { name: 'password', rerender: page },
    handler: profile.savePassword,
  }),
  route({
    method: 'post',
    path: '/picture',
    access: 'user',
    upload: { field: 'picture' },
    form: { name: 'picture', rerender: page },
    handler: profile.savePicture,
  }),
  route({ method: 'post', path: '/picture/delete', access: 'user', form: { name: 'picture', rerender: page }, handler: profile.removePicture }),
  route({ method: 'post', path: '/sessions/delete-others', access: 'user', form: { name: 'sessions', rerender: page }, handler: profile.revokeOtherSessions }),
  route({
    method: 'post',
    path: '/sessions/:sessionId/delete',
    access: 'user',
    params: forms.sessionIdParams,
    form: { name: 'sessions', rerender: page },
    handler: profile.revokeSession,
  }),
];

export function accountRouter(ctx: AppContext, session: RequestHandler[]): Router {
  const router = Router();
  const csrf = createCsrf(ctx);
  // Every URL under /account, known or not, needs a session.
  router.use(...session, requireUser, csrf.provideToken);
  mountRoutes(router, ctx, adminSurface(ctx, csrf), profileRoutes);
  router.use(notFound);
  return router;
}
