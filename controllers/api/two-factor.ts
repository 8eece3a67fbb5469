// Two-step verification in JSON: the caller's own (/app/api/users/profile/2fa…) and an
// administrator's reset of another account (DELETE /app/api/users/:id/2fa).
import type { Request } from 'express';
import { UnauthenticatedError } from '../../lib/errors.js';
import { twoFactorStatus } from '../../models/auth/two-factor.js';
import type { SessionUser } from '../../models/auth/users.js';
import type { Call } from '../../routes/define.js';
import { disableTwoFactor, enableTwoFactor, renewRecoveryCodes, resetTwoFactorByAdmin, setupTwoFactor } from '../../services/two-factor.js';
import { callerOf } from './caller.js';
import { authMessagesForGuards } from '../../lib/messages.js';

type None = Record<string, never>;

function sessionUser(req: Request): SessionUser {
  if (!req.user) throw new UnauthenticatedError(authMessagesForGuards.loginRequired);
  return req.user;
}

// GET /app/api/users/profile/2fa — {enabled, enabled_at, pending, required, recovery_codes_left}
export async function showTwoFactorHandler({ ctx, req, res }: Call): Promise<void> {
  const user = sessionUser(req);
  res.json({ ...(await twoFactorStatus(ctx, user.id)), required: user.second_factor_required });
}

// POST /app/api/users/profile/2fa/setup {current_password} — {secret, otpauth_url, qr_svg}, pending until enabled.
export async function setupTwoFactorHandler({ ctx, origin, req, res, body }: Call<None, None, { current_password: string }>): Promise<void> {
  res.json(await setupTwoFactor(ctx, origin, sessionUser(req), body.current_password));
}

// POST /app/api/users/profile/2fa/enable {code} — {recovery_codes}: shown this once.
export async function enableTwoFactorHandler({ ctx, origin, req, res, body }: Call<None, None, { code: string }>): Promise<void> {
  res.json({ recovery_codes: await enableTwoFactor(ctx, origin, sessionUser(req), body.code) });
}

// POST /app/api/users/profile/2fa/recovery-codes {current_password, code} — a new set; the old one dies.
export async function renewRecoveryCodesHandler({ ctx, origin, req, res, body }: Call<None, None, { current_password: string; code: string }>): Promise<void> {
  const codes = await renewRecoveryCodes(ctx, origin, sessionUser(req), { currentPassword: body.current_password, code: body.code });
  res.json({ recovery_codes: codes });
}

// DELETE /app/api/users/profile/2fa {current_password, code} — 204; code: a TOTP or a recovery code.
export async function disableTwoFactorHandler({ ctx, origin, req, res, body }: Call<None, None, { current_password: string; code: string }>): Promise<void> {
  await disableTwoFactor(ctx, origin, sessionUser(req), { currentPassword: body.current_password, code: body.code });
  res.status(204).end();
}

// DELETE /app/api/users/:id/2fa — users.manage, outranking rule; the user is told by email.
export async function resetTwoFactorHandler({ ctx, req, res, params }: Call<{ id: number }>): Promise<void> {
  await resetTwoFactorByAdmin(ctx, callerOf(req), params.id);
  res.status(204).end();
}
