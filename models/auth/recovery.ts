// Flows driven by a token received by email: address verification, password reset,
// and account setup after an invitation.
import { inTransaction, type AppContext } from '../../lib/context.js';
import { UserFacingError } from '../../lib/errors.js';
import { recordAudit, sourceOf, userTarget } from '../audit.js';
import { hasCredential, storePasswordHash } from './credentials.js';
import { authMessages } from './messages.js';
import { assertPasswordPolicy } from './passwords.js';
import { revokeAllUserSessions } from './sessions.js';
import { budgetSubject, clearSignInBudget } from './sign-in-budgets.js';
import { findUserByEmail, findUserById, markEmailVerified, normalizeEmail, type User } from './users.js';
import { consumeToken, issueToken } from './verifications.js';

function invalidLink(): UserFacingError {
  return new UserFacingError(authMessages.invalidOrExpiredLink, { code: 'invalid_token' });
}

/** A new verification token for an unverified account, or undefined (caller answers the same). */
export async function resendEmailVerification(ctx: AppContext, email: string): Promise<{ user: User; token: string } | undefined> {
  const user = await findUserByEmail(ctx, email);
  // A suspended account gets no link: answered as an unknown address.
  if (!user || user.email_verified || user.suspended_at !== null) return undefined;
  const { token } = await issueToken(ctx, 'email_verification', user);
  return { user, token };
}

export async function verifyEmail(ctx: AppContext, email: string, token: string): Promise<User> {
  return inTransaction(ctx, async (tx) => {
    const consumed = await consumeToken(tx, 'email_verification', email, token);
    if (!consumed) throw invalidLink();
    await markEmailVerified(tx, consumed.userId);
    return (await findUserById(tx, consumed.userId))!;
  });
}

/** A reset token when the account exists and is not suspended, or undefined (caller answers the same). */
export async function requestPasswordReset(ctx: AppContext, email: string): Promise<{ user: User; token: string } | undefined> {
  const user = await findUserByEmail(ctx, email);
  // A suspended account gets no link: answered as an unknown address (the answer is
  // the same either way, and nothing is sent).
  if (!user || user.suspended_at !== null) return undefined;
  const { token } = await issueToken(ctx, 'password_reset', user);
  return { user, token };
}

export interface ResetPasswordInput {
  email: string;
  token: string;
  newPassword: string;
}

export interface ResetPasswordOptions {
  /** Called after the commit; the barrel wires it to sendPasswordChangedEmail. */
  onPasswordChanged?: (user: User) => Promise<void> | void;
  /** The client address, for the audit event. */
  ip?: string | null;
}

/**
 * Sets a new password from a reset link. Proves control of the address, so it also
 * marks the address verified; every open session of the account is closed. A failure
 * of onPasswordChanged (a notice) is logged: the password is changed either way.
 */
export async function resetPassword(ctx: AppContext, input: ResetPasswordInput, options: ResetPasswordOptions = {}): Promise<User> {
  assertPasswordPolicy(input.newPassword, 'newPassword');
  const passwordHash = await ctx.hasher.hash(input.newPassword);
  const user = await inTransaction(ctx, async (tx) => {
    const consumed = await consumeToken(tx, 'password_reset', input.email, input.token);
    if (!consumed) throw invalidLink();
    await storePasswordHash(tx, consumed.userId, passwordHash);
    await markEmailVerified(tx, consumed.userId);
    const closed = await revokeAllUserSessions(tx, consumed.userId);
    // The emailed link proves the owner: the budgets of wrong passwords (the address's)
    // and of wrong codes (the account's) are given back, so a new device is not kept
    // waiting by someone else's guesses; whoever guessed no longer has the password.
    await clearSignInBudget(tx, 'password', budgetSubject('password', consumed.identifier));
    await clearSignInBudget(tx, 'second_factor', budgetSubject('second_factor', consumed.userId));
    const user = (await findUserById(tx, consumed.userId))!;
    // The link proves the address: the account acts.
    await recordAudit(tx, {
      ...sourceOf({ ...user, ip: options.ip ?? null }),
      action: 'auth.password_reset',
      target: userTarget(user),
      details: { sessions_closed: closed },
    });
    return user;
  });
  try {
    await options.onPasswordChanged?.(user);
  } catch (error) {
    ctx.logger.warn({ err: error instanceof Error ? error.message : String(error), userId: user.id }, 'password changed, but the notice failed');
  }
  return user;
}

export interface AccountSetupInput {
  email: string;
  token: string;
  password: string;
  /** The client address, for the audit event. */
  ip?: string | null;
}

/** Consumes an invitation: creates the credential account and marks the address verified. */
export async function completeAccountSetup(ctx: AppContext, input: AccountSetupInput): Promise<User> {
  assertPasswordPolicy(input.password, 'newPassword');
  const passwordHash = await ctx.hasher.hash(input.password);
  return inTransaction(ctx, async (tx) => {
    // The account row first, as a resend or an address move by an administrator locks
    // it before touching its links: the same order on both sides cannot deadlock.
    await tx
      .db('app_auth_users')
      .where({ email: normalizeEmail(input.email) })
      .forUpdate()
      .first('id');
    const consumed = await consumeToken(tx, 'account_setup', input.email, input.token);
    if (!consumed) throw invalidLink();
    if (await hasCredential(tx, consumed.userId)) throw new UserFacingError(authMessages.accountAlreadyActive);
    await storePasswordHash(tx, consumed.userId, passwordHash);
    await markEmailVerified(tx, consumed.userId);
    const user = (await findUserById(tx, consumed.userId))!;
    // The invitation's link proves the address: the account acts.
    await recordAudit(tx, { ...sourceOf({ ...user, ip: input.ip ?? null }), action: 'auth.account_setup', target: userTarget(user) });
    return user;
  });
}
