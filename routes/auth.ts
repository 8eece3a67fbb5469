// /auth: the pages of SPEC A1 and their forms (DESIGN §2–3). Each form POSTs to its
// page's URL; the chain before a controller is the same for all of them: cross-site
// refusal and CSRF token, the operation's rate limit (every POST counts, bots
// included), anti-bot checks, then joi. A failure anywhere re-renders the same form.
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Config } from '../lib/config.js';
import { showConfirm, showForgot, showLogin, showLogout, showRegister, showReset, showSetup } from '../controllers/auth/pages.js';
import { handleFirstRun, onlyDuringFirstRun } from '../controllers/auth/first-run.js';
import { handleLogin } from '../controllers/auth/login.js';
import { handleLogout } from '../controllers/auth/logout.js';
import { handleForgot, handleResend } from '../controllers/auth/recovery.js';
import { handleRegister } from '../controllers/auth/register.js';
import { formFailure } from '../controllers/auth/render.js';
import { accountSchema, confirmSchema, emailOnlySchema, loginSchema, resetSchema, setupSchema } from '../controllers/auth/schemas.js';
import { handleConfirm, handleReset, handleSetup } from '../controllers/auth/tokens.js';
import { provideFormTimestamp, refuseBots } from '../middleware/anti-bot.js';
import { csrfProtection, provideCsrfToken } from '../middleware/csrf.js';
import { createFormLimiters } from '../middleware/rate-limit.js';
import { validate } from '../middleware/validate.js';
import type { RequestHandler } from 'express';
import type Joi from 'joi';

function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.set('Cache-Control', 'no-store');
  next();
}

export function authRouter(_config: Config): Router {
  const router = Router();
  const limit = createFormLimiters();
  const form = (limiter: RequestHandler, schema: Joi.Schema) => [
    ...csrfProtection,
    limiter,
    refuseBots,
    validate({ body: schema }, { allowUnknown: true }),
  ];

  router.use(noStore, provideCsrfToken, provideFormTimestamp);

  // While no account exists, any form POST is the first-run form (register's budget).
  router.post(['/', '/:segment'], onlyDuringFirstRun, ...form(limit.register, accountSchema), handleFirstRun, formFailure('first-run'));

  router.post('/register', ...form(limit.register, accountSchema), handleRegister, formFailure('register'));
  router.post('/forgot', ...form(limit.forgot_password, emailOnlySchema), handleForgot, formFailure('forgot'));
  router.post('/reset', ...form(limit.reset_password, resetSchema), handleReset, formFailure('reset'));
  router.post('/confirm', ...form(limit.verify_email, confirmSchema), handleConfirm, formFailure('confirm'));
  router.post('/setup', ...form(limit.setup_account, setupSchema), handleSetup, formFailure('setup'));
  router.post('/resend-verification', ...form(limit.resend_verification, emailOnlySchema), handleResend, formFailure('login'));
  // Logout is not a public form: no anti-bot delay on a button the user just saw.
  router.post('/logout', ...csrfProtection, handleLogout, formFailure('logout'));
  // /auth, /auth/login and any unknown segment show login, so their POST is a login.
  router.post(['/', '/:segment'], ...form(limit.login, loginSchema), handleLogin, formFailure('login'));

  router.get('/register', showRegister);
  router.get('/forgot', showForgot);
  router.get('/reset', showReset);
  router.get('/confirm', showConfirm);
  router.get('/setup', showSetup);
  router.get('/logout', showLogout);
  router.get(['/', '/:segment'], showLogin);
  return router;
}
