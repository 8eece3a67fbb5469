// /account: the profile page of any logged-in user (no admin.access needed). The same
// rows are mounted at /admin/profile inside the admin guard (routes/admin.ts); the
// forms post back to whichever prefix showed them.
import { Router, type RequestHandler } from 'express';
import * as deletion from '../controllers/account/account-deletion.js';
import * as passkeys from '../controllers/account/passkeys.js';
import * as profile from '../controllers/account/profile.js';
import * as twoFactor from '../controllers/account/two-factor.js';
import * as forms from '../controllers/admin/schemas.js';
import type { AppContext } from '../lib/context.js';
import { ssoParams } from '../controllers/auth/schemas.js';
import { createCsrf } from '../middleware/csrf.js';
import { notFound } from '../middleware/error-handler.js';
import { requireUser } from '../middleware/require-auth.js';
import { letLostFormsThrough, refuseLostForms, restoreFormDraft } from './lost-session.js';
import { adminSurface } from './admin-surface.js';
import { passkeyParams, removePasskeyForm, renamePasskeyForm } from './api/passkey-schemas.js';
import { mountRoutes, route, type AnyRoute } from './define.js';

const page = profile.showProfile;

// Two-step verification: reachable while a role requires it and it is not set up yet.
const twoFactorPage = twoFactor.showTwoFactor;
const twoFactorRoutes: AnyRoute[] = [
  route({ method: 'get', path: '/2fa', access: 'user', duringEnrolment: true, handler: (call) => twoFactor.showTwoFactor(call) }),
  route({
    method: 'post',
    path: '/2fa/setup',
    access: 'user',
    duringEnrolment: true,
    body: forms.twoFactorSetupForm,
    form: { name: 'setup', rerender: twoFactorPage },
    handler: twoFactor.startSetup,
  }),
  route({
    method: 'post',
    path: '/2fa/enable',
    access: 'user',
    duringEnrolment: true,
    body: forms.twoFactorCodeForm,
    form: { name: 'enable', rerender: twoFactorPage },
    handler: twoFactor.confirmSetup,
  }),
  route({
    method: 'post',
    path: '/2fa/recovery-codes',
    access: 'user',
    body: forms.twoFactorCheckForm,
    form: { name: 'recovery-codes', rerender: twoFactorPage },
    handler: twoFactor.renewCodes,
  }),
  route({
    method: 'post',
    path: '/2fa/disable',
    access: 'user',
    body: forms.twoFactorCheckForm,
    form: { name: 'disable', rerender: twoFactorPage },
    handler: twoFactor.disable,
  }),
];

export const profileRoutes: AnyRoute[] = [
  route({ method: 'get', path: '/', access: 'user', handler: (call) => profile.showProfile(call) }),
  route({ method: 'post', path: '/name', access: 'user', body: forms.profileNameForm, form: { name: 'name', rerender: page }, handler: profile.saveName }),
  route({
    method: 'post',
    path: '/review-emails',
    access: 'user',
    body: forms.reviewEmailsForm,
    form: { name: 'review-emails', rerender: page },
    handler: profile.saveReviewEmails,
  }),
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
  route({
    method: 'post',
    path: '/sso/:provider/delete',
    access: 'user',
    params: ssoParams,
    form: { name: 'sso', rerender: page },
    handler: profile.unlinkProvider,
  }),
  route({ method: 'post', path: '/sessions/delete-others', access: 'user', form: { name: 'sessions', rerender: page }, handler: profile.revokeOtherSessions }),
  route({
    method: 'post',
    path: '/sessions/:sessionId/delete',
    access: 'user',
    params: forms.sessionIdParams,
    form: { name: 'sessions', rerender: page },
    handler: profile.revokeSession,
  }),
  // «Supprimer mon compte»: a confirmation page with the current password.
  route({ method: 'get', path: '/delete', access: 'user', handler: (call) => deletion.confirmDeleteOwnAccount(call) }),
  route({
    method: 'post',
    path: '/delete',
    access: 'user',
    body: forms.deleteOwnAccountForm,
    form: { name: 'delete', rerender: deletion.confirmDeleteOwnAccount },
    handler: deletion.deleteOwnAccountFromForm,
  }),
  // Passkeys: renaming and removal from the page (adding one is the page script's, on the JSON routes).
  route({
    method: 'post',
    path: '/passkeys/:id/delete',
    access: 'user',
    params: passkeyParams,
    body: removePasskeyForm,
    form: { name: 'passkeys', rerender: page },
    handler: passkeys.removePasskeyFromForm,
  }),
  route({
    method: 'post',
    path: '/passkeys/:id/rename',
    access: 'user',
    params: passkeyParams,
    body: renamePasskeyForm,
    form: { name: 'passkeys', rerender: page },
    handler: passkeys.renamePasskeyFromForm,
  }),
  ...twoFactorRoutes,
];

export function accountRouter(ctx: AppContext, session: RequestHandler[]): Router {
  const router = Router();
  const csrf = createCsrf(ctx);
  // Every URL under /account, known or not, needs a session.
  router.use(...session, letLostFormsThrough(requireUser), csrf.provideToken, restoreFormDraft(ctx));
  mountRoutes(router, ctx, adminSurface(ctx, csrf), profileRoutes);
  router.use(refuseLostForms, notFound);
  return router;
}
