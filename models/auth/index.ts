// The authentication feature's barrel (SPEC A5): the users data layer plus the feature
// functions and the emails, each taking the application context first. Differences
// from the data layer: resetPassword here notifies the account (PasswordChangedEmail,
// best effort); the one in ./recovery.js does not. Links in emails come from the
// configured BASE_URL (ctx.config), never from a request.
import type { AppContext } from '../../lib/context.js';
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

// A failed send is logged, then raised (SPEC A5): the caller decides what to do.

/** VerificationEmail: link to /auth/confirm. */
export function sendVerificationEmail(ctx: AppContext, email: string, token: string): Promise<void> {
  return ctx.mailer.verification(email, token);
}

/** PasswordResetEmail: link to /auth/reset. */
export function sendPasswordResetEmail(ctx: AppContext, email: string, token: string): Promise<void> {
  return ctx.mailer.passwordReset(email, token);
}

/** PasswordChangedEmail: the notice after a password change. */
export function sendPasswordChangedEmail(ctx: AppContext, email: string): Promise<void> {
  return ctx.mailer.passwordChanged(email);
}

/** InvitationEmail: link to /auth/setup. */
export function sendInvitationEmail(ctx: AppContext, email: string, token: string): Promise<void> {
  return ctx.mailer.invitation(email, token);
}

/** Resets the password from a reset link and sends PasswordChangedEmail (a failed send is logged). */
export function resetPassword(ctx: AppContext, input: ResetPasswordInput, options: ResetPasswordOptions = {}): Promise<User> {
  return resetPasswordSilently(ctx, input, {
    ip: options.ip,
    onPasswordChanged: async (user) => {
      await sendPasswordChangedEmail(ctx, user.email);
      await options.onPasswordChanged?.(user);
    },
  });
}
