// The second step of a login with two-step verification on (/auth/2fa). The correct
// password opened no session, only a pending login (models/auth/pending-logins.ts) whose
// token this browser holds in an HttpOnly cookie: another browser, or a client without
// the cookie, cannot finish it. Path=/ as a `__Host-` cookie must have (lib/cookie-names.ts);
// it lives five minutes.
import type { Request, Response } from 'express';
import type { AppContext } from '../../lib/context.js';
import { readCookie } from '../../lib/cookies.js';
import { cookieName, cookieOptions } from '../../lib/cookie-names.js';
import { wantsJson } from '../../middleware/error-handler.js';
import { logInSession } from '../../middleware/session.js';
import { ENROLMENT_PAGE, mustEnrol } from '../../middleware/two-factor-gate.js';
import { openPendingLogin, pendingLoginSteps, PENDING_LOGIN_LIFETIME_MS, type PendingLogin } from '../../models/auth/pending-logins.js';
import type { SessionUser } from '../../models/auth/users.js';
import type { Call } from '../../routes/define.js';
import { completeSecondStep } from '../../services/two-factor.js';
import { knownDeviceOf, rememberDevice } from './known-device.js';
import { authPageMessages } from './messages.js';
import { answerRedirect, renderAuthPage, safeNextPath } from './render.js';
import type { PageQuery } from './schemas.js';

export const SECOND_FACTOR_COOKIE = 'site.2fa';

/** The pending login's token this browser holds, when it has the right shape. */
export function pendingToken(ctx: AppContext, req: Request): string | undefined {
  const token = readCookie(req, cookieName(ctx.config, req, SECOND_FACTOR_COOKIE));
  return token !== undefined && /^[A-Za-z0-9_-]{43}$/.test(token) ? token : undefined;
}

/**
 * After a correct password on an account with two-step verification: a pending login
 * for this browser, then the code page (a browser) or 401 second_factor_required (JSON).
 */
export async function askSecondFactor(
  ctx: AppContext,
  req: Request,
  res: Response,
  userId: number,
  next: string | undefined,
  first: PendingLogin['first'] = { method: 'password' },
): Promise<void> {
  const token = await openPendingLogin(ctx, userId, safeNextPath(next), first);
  res.cookie(cookieName(ctx.config, req, SECOND_FACTOR_COOKIE), token, cookieOptions(req, { maxAge: PENDING_LOGIN_LIFETIME_MS }));
  if (wantsJson(req)) {
    res.status(401).json({ success: false, error: authPageMessages.secondFactorRequired, code: 'second_factor_required' });
    return;
  }
  res.redirect(303, '/auth/2fa');
}

/** Where a login lands: enrolment first when a role requires it (unless `twoStep`: opened with two factors), else `next`, else the area. */
export function landingOf(
  user: Pick<SessionUser, 'permissions' | 'second_factor_enabled' | 'second_factor_required'>,
  next: string | null | undefined,
  twoStep = false,
): string {
  if (mustEnrol(user, twoStep)) return ENROLMENT_PAGE;
  return safeNextPath(next) ?? (user.permissions.includes('admin.access') ? '/admin' : '/account');
}

// GET /auth/2fa — «Vérification en deux étapes»: the code field.
// An account without a TOTP code (its role requires two steps, met by its passkey) is shown the passkey alone.
export async function showSecondFactor({ ctx, req, res }: Call<Record<string, never>, PageQuery>): Promise<void> {
  const token = pendingToken(ctx, req);
  const steps = token === undefined ? undefined : await pendingLoginSteps(ctx, token);
  // An expired or unknown token keeps the code form: its answer says the login must start again.
  await renderAuthPage(ctx, req, res, 'two-factor', {
    pending: token !== undefined,
    passkeyOnly: steps?.code === false,
    noPendingMessage: authPageMessages.noPendingLogin,
  });
}

// POST /auth/2fa {code} — the pending login of this browser and a TOTP or a recovery code.
export async function handleSecondFactor({ ctx, origin, req, res, body }: Call<Record<string, never>, Record<string, never>, { code: string }>): Promise<void> {
  const { user, next, kind, first } = await completeSecondStep(ctx, origin, pendingToken(ctx, req), body.code, knownDeviceOf(ctx, req));
  res.clearCookie(cookieName(ctx.config, req, SECOND_FACTOR_COOKIE), cookieOptions(req));
  // Regenerates the session id: an id planted before login is worthless (fixation).
  // auth.login records the first step (password or provider) and the second factor.
  await logInSession(req, user, { ...first, second_factor: kind });
  rememberDevice(ctx, req, res, user.id);
  const { permissions: _permissions, second_factor_enabled: _enabled, second_factor_required: _required, ...shown } = user;
  answerRedirect(req, res, landingOf(user, next), { user: shown });
}
