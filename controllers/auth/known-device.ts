// The browser where an account has signed in before: a cookie set at each complete
// sign-in, naming the account and signed with SESSION_SECRET. While someone else spends
// the account's budget of wrong passwords or codes (services/sign-in-guard.ts), the
// owner's own browsers are not slowed down: an attacker's guesses cannot keep the owner
// out. It grants nothing by itself (the password and the code are still asked); it only
// spares the owner the wait. 180 days, renewed at every sign-in.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { AppContext } from '../../lib/context.js';
import { readCookie } from '../../lib/cookies.js';
import { cookieName, cookieOptions } from '../../lib/cookie-names.js';

const KNOWN_DEVICE_COOKIE = 'site.device';
const LIFETIME_MS = 180 * 86_400_000;

function macOf(ctx: AppContext, userId: number, expiresMs: number): string {
  return createHmac('sha256', ctx.config.sessionSecret).update(`known-device:${userId}:${expiresMs}`).digest('base64url');
}

/** The account this browser has signed in to (cookie valid and unexpired), or undefined. */
export function knownDeviceOf(ctx: AppContext, req: Request): number | undefined {
  const value = readCookie(req, cookieName(ctx.config, req, KNOWN_DEVICE_COOKIE));
  const match = value === undefined ? null : /^(\d{1,10})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!match) return undefined;
  const [userId, expiresMs] = [Number(match[1]), Number(match[2])];
  if (expiresMs <= ctx.clock.nowMs()) return undefined;
  const expected = Buffer.from(macOf(ctx, userId, expiresMs));
  const given = Buffer.from(match[3]);
  return expected.length === given.length && timingSafeEqual(expected, given) ? userId : undefined;
}

/** After a complete sign-in: this browser is known to the account. */
export function rememberDevice(ctx: AppContext, req: Request, res: Response, userId: number): void {
  const expiresMs = ctx.clock.nowMs() + LIFETIME_MS;
  res.cookie(
    cookieName(ctx.config, req, KNOWN_DEVICE_COOKIE),
    `${userId}.${expiresMs}.${macOf(ctx, userId, expiresMs)}`,
    cookieOptions(req, { maxAge: LIFETIME_MS }),
  );
}
