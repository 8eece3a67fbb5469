import type { AppContext } from '../../lib/context.js';
import { AccountSuspendedError, EmailNotVerifiedError, InvalidCredentialsError } from '../../lib/errors.js';
import { recordAudit, userTarget } from '../audit.js';
import { CREDENTIAL_PROVIDER, verifyPasswordHash } from './credentials.js';
import { authMessages } from './messages.js';
import { budgetCounters, budgetSubject } from './sign-in-budgets.js';
import { allowedMethods, policyRefusalMessage, SIGN_IN_POLICY_COLUMN, type SignInPolicy } from './sign-in-policy.js';
import { PERMISSIONS_COLUMN, SECOND_FACTOR_COLUMNS, USER_COLUMNS, USER_FROM, normalizeEmail, type SessionUser } from './users.js';

/** The account a right password names, and whether it holds a passkey (a second step it may take without TOTP). */
export type PasswordSignIn = SessionUser & { has_passkey: boolean };

/**
 * Checks an address and password. One hash is always computed, so an unknown address
 * and a wrong password take the same time and give the same error. The unverified
 * and suspended states are revealed only to someone who knows the password.
 *
 * One statement reads the address's budget of wrong passwords (models/auth/sign-in-budgets.ts),
 * the user, its permissions (where the login lands depends on them), its two-step
 * verification state (whether a second factor is asked) and its hash; the hash stays in
 * this function. A spent budget refuses before any hashing (429 «pour ce compte»),
 * except for `knownDevice`, the account this browser has signed in to before.
 *
 * An account whose roles do not allow the password (models/auth/sign-in-policy.ts) is
 * refused before the password is looked at, naming the ways it may use: the answer is
 * the same whether the password is right or not, so the form tells nothing about it.
 * `policy: false` for a password that proves the account rather than opening a session
 * with it (linking a provider: the session is the provider's).
 */
export async function login(
  ctx: AppContext,
  email: string,
  password: string,
  ip: string | null = null,
  knownDevice?: number,
  options: { policy?: boolean } = {},
): Promise<PasswordSignIn> {
  const counters = budgetCounters(ctx, 'password', budgetSubject('password', email));
  const { rows } = await ctx.db.raw<{
    rows: Array<Partial<PasswordSignIn & { password_hash: string | null; sign_in_policy: SignInPolicy }> & { spent_until: Date | null }>;
  }>(
    `WITH budget(key, max) AS (VALUES ${counters.map(() => '(?::varchar, ?::int)').join(', ')}),
     spent AS (
       SELECT max(l.reset_at) AS spent_until FROM app_auth_rate_limits l JOIN budget b ON b.key = l.key
       WHERE l.reset_at > ? AND l.hits >= b.max
     )
     SELECT spent.spent_until, found.* FROM spent LEFT JOIN (
       SELECT ${USER_COLUMNS}, ${PERMISSIONS_COLUMN}, ${SECOND_FACTOR_COLUMNS}, ${SIGN_IN_POLICY_COLUMN}, a.password_hash,
         EXISTS (SELECT 1 FROM app_auth_passkeys pk WHERE pk.user_id = u.id) AS has_passkey
       FROM ${USER_FROM} LEFT JOIN app_auth_accounts a ON a.user_id = u.id AND a.provider = ?
       WHERE u.email = ?
     ) found ON true`,
    [...counters.flatMap(({ key, max }) => [key, max]), ctx.clock.now(), CREDENTIAL_PROVIDER, normalizeEmail(email)],
  );
  const { spent_until: spentUntil, ...found } = rows[0];
  const row =
    found.id === null || found.id === undefined ? undefined : (found as PasswordSignIn & { password_hash: string | null; sign_in_policy: SignInPolicy });
  if (spentUntil && (knownDevice === undefined || row?.id !== knownDevice)) throw new AccountBudgetSpentError(new Date(spentUntil));
  const allowed = row && options.policy !== false ? allowedMethods(row.sign_in_policy) : null;
  if (row && allowed !== null && !allowed.includes('password')) {
    await recordAudit(ctx, {
      actor: null,
      ip,
      action: 'auth.login_failed',
      target: userTarget(row),
      details: { reason: 'method_not_allowed', method: 'password' },
    });
    throw new InvalidCredentialsError(await policyRefusalMessage(ctx, allowed), { code: SIGN_IN_METHOD_REFUSED });
  }
  const valid = await verifyPasswordHash(ctx, password, row?.password_hash);
  if (!row || !valid) {
    await recordLoginFailure(ctx, ip, row, 'invalid_credentials');
    throw new InvalidCredentialsError(authMessages.invalidCredentials);
  }
  const { password_hash: _secret, sign_in_policy: _policy, ...user } = row;
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

/** The code of a refusal by the roles' sign-in policy: no password was checked, so no budget is spent. */
export const SIGN_IN_METHOD_REFUSED = 'sign_in_method_not_allowed';

/** The address's budget of wrong passwords is spent until `until` (the caller answers 429). */
export class AccountBudgetSpentError extends Error {
  constructor(readonly until: Date) {
    super('account budget spent');
  }
}

/**
 * A refused login, by an anonymous visitor: the account is named only when the address
 * matches one, and the typed address is never recorded (it may be a password typed in
 * the wrong field). Every refusal writes one row, so an unknown address costs the same.
 */
function recordLoginFailure(ctx: AppContext, ip: string | null, account: { id: number; name: string } | undefined, reason: string): Promise<void> {
  return recordAudit(ctx, { actor: null, ip, action: 'auth.login_failed', target: account ? userTarget(account) : null, details: { reason } });
}
