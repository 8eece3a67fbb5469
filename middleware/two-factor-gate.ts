// A user one of whose roles requires two-step verification (roles.require_2fa) and who
// has not set it up reaches nothing but its enrolment: every guarded row runs this
// after its guard, except the rows declared `duringEnrolment` (routes/define.ts). Public
// and `anyone` rows (the /auth pages, logout) stay reachable. The state comes with the
// user, read in the session's one statement (models/auth/users.ts), so it costs nothing.
import type { NextFunction, Request, Response } from 'express';
import { ForbiddenError } from '../lib/errors.js';
import { wantsJson } from './error-handler.js';
import { twoFactorGateMessages } from '../lib/messages.js';

export const ENROLMENT_PAGE = '/account/2fa';

/**
 * `twoStep`: this session was opened with two factors without the account's TOTP — a
 * passkey (a device held and unlocked), or a provider whose MFA the site trusts — which
 * meets the role's requirement for this session (issue 27, item 4).
 */
export function mustEnrol(user: { second_factor_required: boolean; second_factor_enabled: boolean } | undefined, twoStep = false): boolean {
  return Boolean(user?.second_factor_required && !user.second_factor_enabled && !twoStep);
}

/** Whether the session was opened with two factors (its stored method: middleware/session.ts). */
function twoStepSession(session: { signInMethod?: string; secondFactor?: string } | undefined): boolean {
  return session?.signInMethod === 'passkey' || Boolean(session?.secondFactor);
}

export function refuseUntilEnrolled(req: Request, res: Response, next: NextFunction): void {
  if (!mustEnrol(req.user, twoStepSession(req.session))) return next();
  if (req.method === 'GET' && !wantsJson(req)) return res.redirect(303, ENROLMENT_PAGE);
  next(new ForbiddenError(twoFactorGateMessages.enrolmentRequired, { code: 'second_factor_enrolment_required' }));
}
