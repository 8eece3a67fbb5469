// Verification, reset, invitation and address-change tokens. A token is 256 random
// bits; only its SHA-256 is stored; it is consumed by one atomic DELETE … RETURNING
// (two concurrent uses: exactly one wins); issuing a new token of a kind for an
// account deletes the older ones of that kind.
import type { AppContext } from '../../lib/context.js';
import { generateToken, hashToken } from '../../lib/tokens.js';
import { normalizeEmail } from './users.js';

export const TOKEN_LIFETIMES_MS = {
  /** Link of VerificationEmail, after registration or a resend. */
  email_verification: 24 * 3_600_000,
  /** Link of PasswordResetEmail. */
  password_reset: 1 * 3_600_000,
  /** Link of InvitationEmail (SPEC: 48 hours). */
  account_setup: 48 * 3_600_000,
  /** Link of EmailChangeConfirmEmail, sent to the new address. */
  email_change: 24 * 3_600_000,
  /** A single sign-on waiting for the existing account's password (its token in this browser's cookie). */
  sso_link: 15 * 60_000,
  /** Link of the email that proves an existing account before it is linked to a provider. */
  sso_link_email: 1 * 3_600_000,
} as const;

export type TokenKind = keyof typeof TOKEN_LIFETIMES_MS;

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export async function issueToken(
  ctx: AppContext,
  kind: TokenKind,
  user: { id: number; email: string },
  payload: Record<string, unknown> = {},
): Promise<IssuedToken> {
  const token = generateToken();
  const expiresAt = new Date(ctx.clock.nowMs() + TOKEN_LIFETIMES_MS[kind]);
  await ctx.db('app_auth_verifications').where({ user_id: user.id, kind }).delete();
  await ctx.db('app_auth_verifications').insert({
    kind,
    identifier: normalizeEmail(user.email),
    user_id: user.id,
    token_hash: hashToken(token),
    payload: JSON.stringify(payload),
    expires_at: expiresAt,
  });
  return { token, expiresAt };
}

export interface ConsumedToken {
  userId: number;
  identifier: string;
  payload: Record<string, unknown>;
}

/**
 * Consumes a token of this kind for this address: returns it once, then never again.
 * A wrong, expired, reused or other-address token gives undefined. Pass identifier
 * undefined only for links that carry no address (address-change confirmation).
 */
export async function consumeToken(ctx: AppContext, kind: TokenKind, identifier: string | undefined, token: string): Promise<ConsumedToken | undefined> {
  const query = ctx
    .db('app_auth_verifications')
    .where({ kind, token_hash: hashToken(token) })
    .andWhere('expires_at', '>', ctx.clock.now());
  if (identifier !== undefined) query.andWhere({ identifier: normalizeEmail(identifier) });
  // A suspended account's links open nothing, even one issued after the suspension.
  query.whereNotIn('user_id', ctx.db('app_auth_users').whereNotNull('suspended_at').select('id'));
  const [row] = await query.delete().returning(['user_id', 'identifier', 'payload']);
  if (!row) return undefined;
  return { userId: row.user_id, identifier: row.identifier, payload: row.payload ?? {} };
}

/** Deletes every pending link of the account (suspension); returns how many there were. */
export async function voidTokensOfUser(ctx: AppContext, userId: number): Promise<number> {
  return ctx.db('app_auth_verifications').where({ user_id: userId }).delete();
}

/** The live token of this kind, without consuming it (a page that shows what the token is about). */
export async function peekToken(ctx: AppContext, kind: TokenKind, token: string): Promise<ConsumedToken | undefined> {
  const row = await ctx
    .db('app_auth_verifications')
    .where({ kind, token_hash: hashToken(token) })
    .andWhere('expires_at', '>', ctx.clock.now())
    .whereNotIn('user_id', ctx.db('app_auth_users').whereNotNull('suspended_at').select('id'))
    .first('user_id', 'identifier', 'payload');
  return row ? { userId: row.user_id, identifier: row.identifier, payload: row.payload ?? {} } : undefined;
}

/** Tells whether a token would be accepted, without consuming it (to pre-check a form). */
export async function isTokenValid(ctx: AppContext, kind: TokenKind, identifier: string, token: string): Promise<boolean> {
  const row = await ctx
    .db('app_auth_verifications')
    .where({ kind, token_hash: hashToken(token), identifier: normalizeEmail(identifier) })
    .andWhere('expires_at', '>', ctx.clock.now())
    .whereNotIn('user_id', ctx.db('app_auth_users').whereNotNull('suspended_at').select('id'))
    .first('id');
  return Boolean(row);
}
