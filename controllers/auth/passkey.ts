// «Se connecter avec une clé d'accès» (/auth/passkey…). The options' challenge is bound to
// the browser that asked by a random token in an HttpOnly cookie (its hash names the
// stored challenge); the answer takes it whatever follows (single use), and opens the
// session exactly as the password login does: new session id, `auth.login` with the
// method, the known-device mark, the same landing.
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Request } from 'express';
import type { AppContext } from '../../lib/context.js';
import { cookieName, cookieOptions } from '../../lib/cookie-names.js';
import { readCookie } from '../../lib/cookies.js';
import { generateToken } from '../../lib/tokens.js';
import { logInSession } from '../../middleware/session.js';
import { PASSKEY_CHALLENGE_LIFETIME_MS } from '../../models/auth/passkeys.js';
import type { Call } from '../../routes/define.js';
import { completeSecondStepWithPasskey, secondStepPasskeyOptions } from '../../services/passkey-second-step.js';
import { passkeySignIn, passkeySignInOptions } from '../../services/passkeys.js';
import { knownDeviceOf, rememberDevice } from './known-device.js';
import { answerRedirect } from './render.js';
import { landingOf, pendingToken, SECOND_FACTOR_COOKIE } from './two-factor.js';

const PASSKEY_COOKIE = 'site.passkey';

type None = Record<string, never>;

function challengeToken(ctx: AppContext, req: Request): string | undefined {
  const token = readCookie(req, cookieName(ctx.config, req, PASSKEY_COOKIE));
  return token !== undefined && /^[A-Za-z0-9_-]{43}$/.test(token) ? token : undefined;
}

// POST /auth/passkey/options — PublicKeyCredentialRequestOptionsJSON; the challenge's cookie.
export async function handlePasskeyOptions({ ctx, req, res }: Call): Promise<void> {
  const token = generateToken();
  const options = await passkeySignInOptions(ctx, `sign-in:${token}`);
  res.cookie(cookieName(ctx.config, req, PASSKEY_COOKIE), token, cookieOptions(req, { maxAge: PASSKEY_CHALLENGE_LIFETIME_MS }));
  res.json(options);
}

// POST /auth/passkey {response} — the login's answer: {success, user, redirect} in JSON, 303 for a form.
export async function handlePasskeySignIn({ ctx, origin, req, res, body }: Call<None, None, { response: AuthenticationResponseJSON }>): Promise<void> {
  const token = challengeToken(ctx, req);
  res.clearCookie(cookieName(ctx.config, req, PASSKEY_COOKIE), cookieOptions(req));
  const { permissions, second_factor_enabled, second_factor_required, ...user } = await passkeySignIn(
    ctx,
    origin,
    token && `sign-in:${token}`,
    body.response,
    knownDeviceOf(ctx, req),
  );
  // Regenerates the session id: an id planted before login is worthless (fixation).
  await logInSession(req, user, { method: 'passkey' });
  rememberDevice(ctx, req, res, user.id);
  answerRedirect(req, res, landingOf({ permissions, second_factor_enabled, second_factor_required }, undefined, true), { user });
}

// POST /auth/2fa/passkey/options — during a pending login: the account's passkeys to choose from.
export async function handleSecondStepOptions({ ctx, req, res }: Call): Promise<void> {
  res.json(await secondStepPasskeyOptions(ctx, pendingToken(ctx, req)));
}

// POST /auth/2fa/passkey {response} — the second step with a passkey instead of a code.
export async function handleSecondStepPasskey({ ctx, origin, req, res, body }: Call<None, None, { response: AuthenticationResponseJSON }>): Promise<void> {
  const { user, next, first } = await completeSecondStepWithPasskey(ctx, origin, pendingToken(ctx, req), body.response);
  res.clearCookie(cookieName(ctx.config, req, SECOND_FACTOR_COOKIE), cookieOptions(req));
  // Regenerates the session id; auth.login records which second factor opened it.
  await logInSession(req, user, { ...first, second_factor: 'passkey' });
  rememberDevice(ctx, req, res, user.id);
  const { permissions, second_factor_enabled, second_factor_required, ...shown } = user;
  answerRedirect(req, res, landingOf({ permissions, second_factor_enabled, second_factor_required }, next, true), { user: shown });
}
