import type { AppContext } from '../../lib/context.js';
import { EmailNotVerifiedError, InvalidCredentialsError } from '../../lib/errors.js';
import { CREDENTIAL_PROVIDER, verifyPasswordHash } from './credentials.js';
import { authMessages } from './messages.js';
import { PERMISSIONS_COLUMN, USER_COLUMNS, USER_FROM, normalizeEmail, type SessionUser } from './users.js';

/**
 * Checks an address and password. One hash is always computed, so an unknown address
 * and a wrong password take the same time and give the same error. The unverified
 * state is revealed only to someone who knows the password.
 *
 * One statement reads the user, its permissions (where the login lands depends on
 * them) and its hash; the hash stays in this function.
 */
export async function login(ctx: AppContext, email: string, password: string): Promise<SessionUser> {
  const { rows } = await ctx.db.raw<{ rows: Array<SessionUser & { password_hash: string | null }> }>(
    `SELECT ${USER_COLUMNS}, ${PERMISSIONS_COLUMN}, a.password_hash
     FROM ${USER_FROM} LEFT JOIN app_auth_accounts a ON a.user_id = u.id AND a.provider = ?
     WHERE u.email = ?`,
    [CREDENTIAL_PROVIDER, normalizeEmail(email)],
  );
  const row = rows[0];
  const valid = await verifyPasswordHash(ctx, password, row?.password_hash);
  if (!row || !valid) throw new InvalidCredentialsError(authMessages.invalidCredentials);
  const { password_hash: _secret, ...user } = row;
  if (!user.email_verified) throw new EmailNotVerifiedError(authMessages.emailUnverified);
  return user;
}
