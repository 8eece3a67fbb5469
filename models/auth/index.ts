// The authentication feature's barrel (SPEC A5): the users data layer plus the feature
// functions and the emails. Differences from the data layer: resetPassword here
// notifies the account (PasswordChangedEmail); the one in ./recovery.js does not.
import { sendPasswordChangedEmail } from '../../mail/index.js';
import { resetPassword as resetPasswordSilently, type ResetPasswordInput, type ResetPasswordOptions } from './recovery.js';
import type { User } from './users.js';

export * from './users.js';
export * from './credentials.js';
export * from './passwords.js';
export * from './verifications.js';
export * from './registration.js';
export * from './login.js';
export * from './sessions.js';
export { authMessages } from './messages.js';
export {
  resendEmailVerification,
  verifyEmail,
  requestPasswordReset,
  completeAccountSetup,
  type ResetPasswordInput,
  type ResetPasswordOptions,
  type AccountSetupInput,
} from './recovery.js';
export { EmailNotVerifiedError, InvalidCredentialsError, UserFacingError } from '../../lib/errors.js';
export {
  sendVerificationEmail,
  sendPasswordResetEmail,
  sendPasswordChangedEmail,
  sendInvitationEmail,
  sendEmailChangeConfirmEmail,
  sendEmailChangeNotifyEmail,
} from '../../mail/index.js';

/** Resets the password from a reset link and sends PasswordChangedEmail (a failed send is logged). */
export function resetPassword(input: ResetPasswordInput, options: ResetPasswordOptions = {}): Promise<User> {
  return resetPasswordSilently(input, {
    onPasswordChanged: async (user) => {
      await sendPasswordChangedEmail(user.email);
      await options.onPasswordChanged?.(user);
    },
  });
}
