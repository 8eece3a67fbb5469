import { EmailNotVerifiedError, InvalidCredentialsError } from '../../lib/errors.js';
import { checkPassword } from './credentials.js';
import { authMessages } from './messages.js';
import { findUserByEmail, type User } from './users.js';

/**
 * Checks an address and password. One hash is always computed, so an unknown address
 * and a wrong password take the same time and give the same error. The unverified
 * state is revealed only to someone who knows the password.
 */
export async function login(email: string, password: string): Promise<User> {
  const user = await findUserByEmail(email);
  const valid = await checkPassword(user?.id, password);
  if (!user || !valid) throw new InvalidCredentialsError(authMessages.invalidCredentials);
  if (!user.email_verified) throw new EmailNotVerifiedError(authMessages.emailUnverified);
  return user;
}
