import type { AppContext } from '../../lib/context.js';
import { AccountSuspendedError, EmailNotVerifiedError, InvalidCredentialsError } from '../../lib/errors.js';
import { recordAudit, userTarget } from '../audit.js';
import { CREDENTIAL_PROVIDER, verifyPasswordHash } from './credentials.js';
import { authMessages } from './messages.js';
import { PERMISSIONS_COLUMN, SECOND_FACTOR_COLUMNS, USER_COLUMNS, USER_FROM, normalizeEmail, type SessionUser } from './users.js';

/**
 * Checks an address and password. One hash is always computed, so an unknown address
 * and a wrong password take the same time and give the same error. The unverified
 * and suspended states are revealed only to someone who knows the password.
 *
 * One statement reads the user, its permissions (where the login lands depends on
 * them), its two-step verification state (whether a second factor is asked) and its
 * hash; the hash stays in this function.
 */
export async function login(ctx: AppContext, email: string, password: string, ip: string | null = null): Promise<SessionUser> {
  const { rows } = await ctx.db.raw<{ rows: Array<SessionUser & { password_hash: string | null }> }>(
    `SELECT ${USER_COLUMNS}, ${PERMISSIONS_COLUMN}, ${SECOND_FACTOR_COLUMNS}, a.password_hash
     FROM ${USER_FROM} LEFT JOIN app_auth_accounts a ON a.user_id = u.id AND a.provider = ?
     WHERE u.email = ?`,
    [CREDENTIAL_PROVIDER, normalizeEmail(email)],
  );
  const row = rows[0];
  const valid = await verifyPasswordHash(ctx, password, row?.password_hash);
  if (!row || !valid) {
    await recordLoginFailure(ctx, ip, row, 'invalid_credentials');
    throw new InvalidCredentialsError(authMessages.invalidCredentials);
  }
  const { password_hash: _secret, ...user } = row;
  // Said only to someone who knows the password; before any second factor.
  if (user.suspended_at !== null) {
    await recordLoginFailure(ctx, ip, user, 'account_suspended');
    throw new AccountSuspendedError(authMessages.accountSuspended);
  }
  if (!user.email_verified) {
    await recordLoginFailure(ctx, ip, user, 'email_unverified');
    throw new EmailNotVerifiedError(authMessages.emailUnverified);
  }
  return user;
}

/**
 * A refused login, by an anonymous visitor: the account is named only when the address
 * matches one, and the typed address is never recorded (it may be a password typed in
 * the wrong field). Every refusal writes one row, so an unknown address costs the same.
 */
function recordLoginFailure(ctx: AppContext, ip: string | null, account: { id: number; name: string } | undefined, reason: string): Promise<void> {
  return recordAudit(ctx, { actor: null, ip, action: 'auth.login_failed', target: account ? userTarget(account) : null, details: { reason } });
}
