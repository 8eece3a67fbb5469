// The login between a correct password and its second factor: a row of
// app_auth_pending_logins, named by the SHA-256 of a random token that only the browser
// that typed the password holds (an HttpOnly cookie), living 5 minutes, ended by 5 wrong
// codes, consumed by the right one. A table rather than the session: no session exists
// yet (the password alone must open none), and an attempt is counted by one atomic
// UPDATE, so parallel guesses cannot share a count.
import type { AppContext } from '../../lib/context.js';
import { generateToken, hashToken } from '../../lib/tokens.js';
import { policyKeyOf, type SignInRecord } from './sign-in-policy.js';

export const PENDING_LOGIN_LIFETIME_MS = 5 * 60 * 1000;
const PENDING_LOGIN_MAX_ATTEMPTS = 5;

export interface PendingLogin {
  userId: number;
  next: string | null;
  /** The first step (the password, or a provider without MFA): the session's `auth.login` names it. */
  first: Pick<SignInRecord, 'method' | 'provider'>;
}

function firstStepOf(stored: string | null): PendingLogin['first'] {
  if (stored?.startsWith('sso:')) return { method: 'sso', provider: Number(stored.slice(4)) };
  return { method: 'password' };
}

/** Opens a pending login; the token goes to the browser's cookie, only its hash is stored. An earlier one of the account ends. */
export async function openPendingLogin(
  ctx: AppContext,
  userId: number,
  next: string | undefined,
  first: PendingLogin['first'] = { method: 'password' },
): Promise<string> {
  const token = generateToken();
  const now = ctx.clock.nowMs();
  // Expired rows of every account go at the same time (an index on expires_at).
  await ctx.db('app_auth_pending_logins').where({ user_id: userId }).orWhere('expires_at', '<', new Date(now)).delete();
  await ctx.db('app_auth_pending_logins').insert({
    token_hash: hashToken(token),
    user_id: userId,
    expires_at: new Date(now + PENDING_LOGIN_LIFETIME_MS),
    next: next ?? null,
    method: policyKeyOf(first),
    created_at: new Date(now),
  });
  return token;
}

/**
 * Locks the live pending login of this token for the transaction, or undefined (no such
 * token, expired, or out of attempts).
 */
export async function lockPendingLogin(tx: AppContext, token: string): Promise<PendingLogin | undefined> {
  const row = await tx
    .db('app_auth_pending_logins')
    .where({ token_hash: hashToken(token) })
    .where('expires_at', '>', tx.clock.now())
    .where('attempts', '<', PENDING_LOGIN_MAX_ATTEMPTS)
    .forUpdate()
    .first('user_id', 'next', 'method');
  return row ? { userId: row.user_id, next: row.next, first: firstStepOf(row.method) } : undefined;
}

/**
 * Which second steps the live pending login of this token can take: a TOTP code when its
 * account has one on, else only a passkey (a role requiring two steps, met by a passkey).
 * Undefined: no such live pending login.
 */
export async function pendingLoginSteps(ctx: AppContext, token: string): Promise<{ code: boolean } | undefined> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ code: boolean }> }>(
    `SELECT EXISTS (SELECT 1 FROM app_auth_two_factor tf WHERE tf.user_id = p.user_id AND tf.enabled_at IS NOT NULL) AS code
     FROM app_auth_pending_logins p WHERE p.token_hash = ? AND p.expires_at > ? AND p.attempts < ?`,
    [hashToken(token), ctx.clock.now(), PENDING_LOGIN_MAX_ATTEMPTS],
  );
  return rows[0];
}

/** The right code: the pending login is used up. */
export async function consumePendingLogin(tx: AppContext, token: string): Promise<void> {
  await tx
    .db('app_auth_pending_logins')
    .where({ token_hash: hashToken(token) })
    .delete();
}

/** A wrong code: one attempt spent; the fifth ends the pending login. Returns the attempts left. */
export async function spendPendingAttempt(tx: AppContext, token: string): Promise<number> {
  const [row] = await tx
    .db('app_auth_pending_logins')
    .where({ token_hash: hashToken(token) })
    .increment('attempts', 1)
    .returning('attempts');
  const left = PENDING_LOGIN_MAX_ATTEMPTS - (row?.attempts ?? PENDING_LOGIN_MAX_ATTEMPTS);
  if (left <= 0) await consumePendingLogin(tx, token);
  return Math.max(0, left);
}
