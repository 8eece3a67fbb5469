// «Vérification en deux étapes», the profile's page for it (/account/2fa, also under
// /admin/profile/2fa): start (current password) → the QR code and the secret as text →
// the first code turns it on and shows the ten recovery codes once; then new codes or
// turning it off (current password and a code). Same services as the JSON routes.
import type { Request } from 'express';
import { UnauthenticatedError } from '../../lib/errors.js';
import { pendingSetupOf, RECOVERY_CODE_COUNT, twoFactorStatus } from '../../models/auth/two-factor.js';
import type { SessionUser } from '../../models/auth/users.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { disableTwoFactor, enableTwoFactor, qrSvg, renewRecoveryCodes, setupTwoFactor } from '../../services/two-factor.js';
import { redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { authMessagesForGuards } from '../../lib/messages.js';
import { twoFactorPageMessages } from '../admin/messages.js';

type None = Record<string, never>;

function base(req: Request): string {
  return `${req.baseUrl || '/account'}/2fa`;
}

function sessionUser(req: Request): SessionUser {
  if (!req.user) throw new UnauthenticatedError(authMessagesForGuards.loginRequired);
  return req.user;
}

// GET /account/2fa — also the page re-rendered when one of its forms is refused.
export async function showTwoFactor(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const { ctx, req } = call;
  const user = sessionUser(req);
  const state = await twoFactorStatus(ctx, user.id);
  const pending = state.enabled ? undefined : await pendingSetupOf(ctx, user);
  await renderAdmin(
    call,
    'account/two-factor.njk',
    {
      pageTitle: twoFactorPageMessages.title,
      base: base(req),
      profile: req.baseUrl || '/account',
      state,
      required: user.second_factor_required,
      setup: pending ? { ...pending, qr_svg: await qrSvg(pending.otpauth_url) } : undefined,
      ...locals,
    },
    status,
  );
}

/** The recovery codes, shown this once (the answer to the form that made them). */
function showCodes(call: AnyCall, codes: string[], message: string): Promise<void> {
  return renderAdmin(call, 'account/two-factor-codes.njk', {
    pageTitle: twoFactorPageMessages.title,
    base: base(call.req),
    codes,
    message,
    count: RECOVERY_CODE_COUNT,
  });
}

// POST …/2fa/setup {current_password} — a new pending secret; the page shows it.
export async function startSetup({ ctx, origin, req, res, body }: Call<None, None, { current_password: string }>): Promise<void> {
  await setupTwoFactor(ctx, origin, sessionUser(req), body.current_password);
  redirectWithFlash(req, res, base(req), twoFactorPageMessages.setupStarted);
}

// POST …/2fa/enable {code} — on; the recovery codes once.
export async function confirmSetup(call: Call<None, None, { code: string }>): Promise<void> {
  const codes = await enableTwoFactor(call.ctx, call.origin, sessionUser(call.req), call.body.code);
  await showCodes(call, codes, twoFactorPageMessages.enabled);
}

// POST …/2fa/recovery-codes {current_password, code} — a new set, once.
export async function renewCodes(call: Call<None, None, { current_password: string; code: string }>): Promise<void> {
  const { ctx, origin, req, body } = call;
  const codes = await renewRecoveryCodes(ctx, origin, sessionUser(req), { currentPassword: body.current_password, code: body.code });
  await showCodes(call, codes, twoFactorPageMessages.renewed);
}

// POST …/2fa/disable {current_password, code}
export async function disable({ ctx, origin, req, res, body }: Call<None, None, { current_password: string; code: string }>): Promise<void> {
  await disableTwoFactor(ctx, origin, sessionUser(req), { currentPassword: body.current_password, code: body.code });
  redirectWithFlash(req, res, base(req), twoFactorPageMessages.disabled);
}
