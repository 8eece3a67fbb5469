// /auth: the pages of SPEC A1 and their forms (DESIGN §2–3), one row each. Each form
// POSTs to its page's URL; the surface puts the same steps before every form: the
// mark that the form was reached (so any refusal re-renders it), cross-site refusal
// and CSRF token, the row's rate limit (every POST counts, bots included), and the
// anti-bot checks of the public forms; then the row's joi schema and its handler.
import express, { Router, type RequestHandler } from 'express';
import type { AppContext } from '../lib/context.js';
import { createFirstRunGate, createStaleFirstRunRefusal, handleFirstRun } from '../controllers/auth/first-run.js';
import { handleLogin } from '../controllers/auth/login.js';
import { handleLogout } from '../controllers/auth/logout.js';
import { handlePasskeyOptions, handlePasskeySignIn, handleSecondStepOptions, handleSecondStepPasskey } from '../controllers/auth/passkey.js';
import { handleSecondFactor, showSecondFactor } from '../controllers/auth/two-factor.js';
import * as sso from '../controllers/auth/sso.js';
import { logoutLocals, showConfirm, showForgot, showLogin, showLogout, showRegister, showReset, showSetup } from '../controllers/auth/pages.js';
import { handleForgot, handleResend } from '../controllers/auth/recovery.js';
import { handleRegister } from '../controllers/auth/register.js';
import { authForm, linkForm } from '../controllers/auth/render.js';
import {
  accountSchema,
  confirmSchema,
  emailOnlySchema,
  firstRunSchema,
  loginSchema,
  pageQuery,
  resetSchema,
  secondFactorSchema,
  segmentParams,
  setupSchema,
  ssoCallbackQuery,
  ssoLinkSchema,
  ssoParams,
  ssoStartQuery,
} from '../controllers/auth/schemas.js';
import { handleConfirm, handleReset, handleSetup } from '../controllers/auth/tokens.js';
import { createAntiBot } from '../middleware/anti-bot.js';
import { createCrossSiteRefusal } from '../middleware/cross-site.js';
import { createCsrf } from '../middleware/csrf.js';
import { notFound } from '../middleware/error-handler.js';
import { createRateLimiter } from '../middleware/rate-limit.js';
import { passkeySignInBody } from './api/passkey-schemas.js';
import { mountRoutes, route, type AnyRoute, type Surface } from './define.js';
import { formFailures, formReached } from './form-failure.js';

// While no account exists, any form POST is the first-run form (register's budget):
// this row comes first and passes the request on to the next row once an account exists,
// except the first-run form itself (its hidden `_form`), which it refuses then.
const firstRun = route({
  method: 'post',
  path: ['/', '/:segment'],
  access: 'anyone',
  params: segmentParams,
  body: firstRunSchema,
  limit: 'register',
  form: authForm('first-run'),
  handler: handleFirstRun,
});

const forms: AnyRoute[] = [
  firstRun,
  route({ method: 'post', path: '/register', access: 'anyone', body: accountSchema, limit: 'register', form: authForm('register'), handler: handleRegister }),
  route({
    method: 'post',
    path: '/forgot',
    access: 'anyone',
    body: emailOnlySchema,
    limit: 'forgot_password',
    form: authForm('forgot'),
    handler: handleForgot,
  }),
  route({ method: 'post', path: '/reset', access: 'anyone', body: resetSchema, limit: 'reset_password', form: linkForm('reset'), handler: handleReset }),
  route({ method: 'post', path: '/confirm', access: 'anyone', body: confirmSchema, limit: 'verify_email', form: linkForm('confirm'), handler: handleConfirm }),
  route({ method: 'post', path: '/setup', access: 'anyone', body: setupSchema, limit: 'setup_account', form: linkForm('setup'), handler: handleSetup }),
  // The second step of a login with two-step verification: a budget per address of its
  // own (a sign-in with a code is two POSTs, which must not halve the login's), on top of
  // the pending login's own 5 attempts and the account's budget of wrong codes.
  route({
    method: 'post',
    path: '/2fa',
    access: 'anyone',
    body: secondFactorSchema,
    limit: 'second_factor',
    form: authForm('two-factor', (_call, locals) => ({ ...locals, pending: locals.errorCode !== 'second_factor_expired' })),
    handler: handleSecondFactor,
  }),
  // Single sign-on: an existing account proves itself before it is linked (services/sso.ts).
  // Its password is a login's password step, on the login's budget.
  route({
    method: 'post',
    path: '/sso/link',
    access: 'anyone',
    body: ssoLinkSchema,
    limit: 'login',
    form: { name: 'sso-link', rerender: sso.rerenderSsoLink },
    handler: sso.proveSsoLinkByPassword,
  }),
  route({
    method: 'post',
    path: '/sso/link/email',
    access: 'anyone',
    limit: 'forgot_password',
    form: { name: 'sso-link', rerender: sso.rerenderSsoLink },
    handler: sso.proveSsoLinkByEmail,
  }),
  route({
    method: 'post',
    path: '/sso/link/confirm',
    access: 'anyone',
    body: confirmSchema,
    limit: 'verify_email',
    form: linkForm('sso-link-confirm'),
    handler: sso.confirmSsoLinkByEmail,
  }),
  // Its button sits on the login page, after an email_unverified failure.
  route({
    method: 'post',
    path: '/resend-verification',
    access: 'anyone',
    body: emailOnlySchema,
    limit: 'resend_verification',
    form: authForm('login'),
    handler: handleResend,
  }),
  // Not a public form (its button is shown to logged-in users): no budget, no anti-bot delay.
  route({
    method: 'post',
    path: '/logout',
    access: 'anyone',
    form: authForm('logout', (call, locals) => ({ ...locals, ...logoutLocals(call.req.user) })),
    handler: handleLogout,
  }),
];

// «Se connecter avec une clé d'accès»: the page's script posts JSON (a form may post the
// answer as text in `response`). The options spend the API's budget (each writes a
// challenge); the answer spends the login's, like a password.
const passkeyRows: AnyRoute[] = [
  route({ method: 'post', path: '/passkey/options', access: 'anyone', limit: 'api', handler: handlePasskeyOptions }),
  route({ method: 'post', path: '/passkey', access: 'anyone', body: passkeySignInBody, limit: 'login', form: authForm('login'), handler: handlePasskeySignIn }),
  // The second step of a pending login with a passkey instead of a code (its budget: the code's).
  route({ method: 'post', path: '/2fa/passkey/options', access: 'anyone', limit: 'api', handler: handleSecondStepOptions }),
  route({
    method: 'post',
    path: '/2fa/passkey',
    access: 'anyone',
    body: passkeySignInBody,
    limit: 'second_factor',
    form: authForm('two-factor', (_call, locals) => ({ ...locals, pending: locals.errorCode !== 'second_factor_expired' })),
    handler: handleSecondStepPasskey,
  }),
];
const PASSKEY_BODY_LIMIT = '100kb';

const pages: AnyRoute[] = [
  route({ method: 'get', path: '/register', access: 'anyone', query: pageQuery, handler: showRegister }),
  route({ method: 'get', path: '/forgot', access: 'anyone', query: pageQuery, handler: showForgot }),
  route({ method: 'get', path: '/reset', access: 'anyone', query: pageQuery, handler: showReset }),
  route({ method: 'get', path: '/confirm', access: 'anyone', query: pageQuery, handler: showConfirm }),
  route({ method: 'get', path: '/setup', access: 'anyone', query: pageQuery, handler: showSetup }),
  route({ method: 'get', path: '/logout', access: 'anyone', query: pageQuery, handler: showLogout }),
  route({ method: 'get', path: '/2fa', access: 'anyone', query: pageQuery, handler: showSecondFactor }),
  route({ method: 'get', path: '/sso/link', access: 'anyone', query: pageQuery, handler: sso.showSsoLink }),
  route({ method: 'get', path: '/sso/link/confirm', access: 'anyone', query: pageQuery, handler: sso.showSsoLinkConfirm }),
  route({ method: 'get', path: '/sso/:provider', access: 'anyone', params: ssoParams, query: ssoStartQuery, handler: sso.startSso }),
  route({ method: 'get', path: '/sso/:provider/callback', access: 'anyone', params: ssoParams, query: ssoCallbackQuery, handler: sso.finishSso }),
];

// /auth, /auth/login and any unknown segment show login, so their POST is a login.
// Mounted last: the named pages and forms above win.
const anySegment: AnyRoute[] = [
  route({ method: 'get', path: ['/', '/:segment'], access: 'anyone', params: segmentParams, query: pageQuery, handler: showLogin }),
  route({
    method: 'post',
    path: ['/', '/:segment'],
    access: 'anyone',
    params: segmentParams,
    body: loginSchema,
    limit: 'login',
    form: authForm('login'),
    handler: handleLogin,
  }),
];

export function authRouter(ctx: AppContext, session: RequestHandler[]): Router {
  const router = Router();
  const csrf = createCsrf(ctx);
  const antiBot = createAntiBot(ctx);
  const onlyDuringFirstRun = createFirstRunGate(ctx);
  const refuseStaleFirstRun = createStaleFirstRunRefusal(ctx);
  const refuseCrossSite = createCrossSiteRefusal(ctx);

  // Form tokens are made only when a page is rendered (a redirect mints none).
  router.use(csrf.provideToken, antiBot.provideTimestamp);

  const passkeyJson = express.json({ limit: PASSKEY_BODY_LIMIT, strict: true, type: 'application/json' });

  const surface: Surface = {
    strict: false,
    session,
    prepare(row) {
      if (row.method === 'get') return [];
      // No form timestamp to check: an answer is signed by the authenticator over a challenge.
      if (passkeyRows.includes(row))
        return [passkeyJson, formReached, ...csrf.protection, createRateLimiter(ctx, row.limit ?? 'login', { refundRefusedInput: false })];
      // Every public form spends a budget (rows of one operation share its counters);
      // logout, the one form that is not public, has none.
      // A typo refused by the input's rules gives its hit back (routes/form-failure.ts),
      // except on login and its second step, whose every attempt counts.
      const limiter = row.limit && createRateLimiter(ctx, row.limit, { refundRefusedInput: row.limit !== 'login' && row.limit !== 'second_factor' });
      const publicForm = limiter ? [limiter, antiBot.refuseBots] : [];
      if (row !== firstRun) return [formReached, ...csrf.protection, ...publicForm];
      // A first-run form from a tab opened before the account existed is refused before
      // its token is checked: that token was minted without the session the same browser
      // may hold now (the administrator just created), and the refusal does no work.
      return [onlyDuringFirstRun, formReached, refuseCrossSite, refuseStaleFirstRun, csrf.verifyToken, ...publicForm];
    },
    failure: formFailures(ctx),
  };
  mountRoutes(router, ctx, surface, [...forms, ...passkeyRows, ...pages, ...anySegment]);
  router.use(notFound);
  return router;
}
