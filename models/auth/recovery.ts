// Flows driven by a token received by email: address verification, password reset,
// and account setup after an invitation.
import { db } from '../../lib/db.js';
import { UserFacingError } from '../../lib/errors.js';
import { hashPassword } from '../../lib/password-hasher.js';
import { logger } from '../../lib/logger.js';
import { hasCredential, storePasswordHash } from './credentials.js';
import { authMessages } from './messages.js';
import { assertPasswordPolicy } from './passwords.js';
import { revokeAllUserSessions } from './sessions.js';
import { findUserByEmail, findUserById, markEmailVerified, type User } from './users.js';
import { consumeToken, issueToken } from './verifications.js';

function invalidLink(): UserFacingError {
  return new UserFacingError(authMessages.invalidOrExpiredLink, { code: 'invalid_token' });
}

/** A new verification token for an unverified account, or undefined (caller answers the same). */
export async function resendEmailVerification(email: string): Promise<{ user: User; token: string } | undefined> {
  const user = await findUserByEmail(email);
  if (!user || user.email_verified) return undefined;
  const { token } = await issueToken('email_verification', user);
  return { user, token };
}

export async function verifyEmail(email: string, token: string): Promise<User> {
  return db().transaction(async (trx) => {
    const consumed = await consumeToken('email_verification', email, token, trx);
    if (!consumed) throw invalidLink();
    await markEmailVerified(consumed.userId, trx);
    return (await findUserById(consumed.userId, trx))!;
  });
}

/** A reset token when the account exists, or undefined (caller answers the same). */
export async function requestPasswordReset(email: string): Promise<{ user: User; token: string } | undefined> {
  const user = await findUserByEmail(email);
  if (!user) return undefined;
  const { token } = await issueToken('password_reset', user);
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
}

/**
 * Sets a new password from a reset link. Proves control of the address, so it also
 * marks the address verified; every open session of the account is closed.
 */
export async function resetPassword(input: ResetPasswordInput, options: ResetPasswordOptions = {}): Promise<User> {
  assertPasswordPolicy(input.newPassword, 'newPassword');
  const passwordHash = await hashPassword(input.newPassword);
  const user = await db().transaction(async (trx) => {
    const consumed = await consumeToken('password_reset', input.email, input.token, trx);
    if (!consumed) throw invalidLink();
    await storePasswordHash(consumed.userId, passwordHash, trx);
    await markEmailVerified(consumed.userId, trx);
    await revokeAllUserSessions(consumed.userId, {}, trx);
    return (await findUserById(consumed.userId, trx))!;
  });
  if (options.onPasswordChanged) {
    try {
      await options.onPasswordChanged(user);
    } catch (error) {
      logger.error({ err: error, userId: user.id }, 'password changed, but the notification failed');
    }
  }
  return user;
}

export interface AccountSetupInput {
  email: string;
  token: string;
  password: string;
}

/** Consumes an invitation: creates the credential account and marks the address verified. */
export async function completeAccountSetup(input: AccountSetupInput): Promise<User> {
  assertPasswordPolicy(input.password, 'newPassword');
  const passwordHash = await hashPassword(input.password);
  return db().transaction(async (trx) => {
    const consumed = await consumeToken('account_setup', input.email, input.token, trx);
    if (!consumed) throw invalidLink();
    if (await hasCredential(consumed.userId, trx)) throw new UserFacingError(authMessages.accountAlreadyActive);
    await storePasswordHash(consumed.userId, passwordHash, trx);
    await markEmailVerified(consumed.userId, trx);
    return (await findUserById(consumed.userId, trx))!;
  });
}
