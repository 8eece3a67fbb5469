// Use cases of the logged-in user on their own account, called by both
// /app/api/users/profile and the profile page (/account, /admin/profile).
import type { Request } from 'express';
import type { AppContext } from '../lib/context.js';
import { removeStoredFile, storeImage, type UploadedImage } from '../lib/uploads.js';
import { assertPasswordPolicy } from '../models/auth/passwords.js';
import { existingUser, issueEmailChange, replaceOwnPassword, replaceProfileImage } from '../models/auth/profile.js';
import type { User } from '../models/auth/users.js';
import { verifyCurrentPassword } from './current-password.js';
import { noticeInBackground } from './mail-policy.js';
import { sendAddressChangeEmails, type Acting, type AddressChangeStarted } from './users.js';

/**
 * Starts the user's own address change. The current password is checked first (with
 * the login-grade limit of services/current-password.ts, hence the request), so the
 * form cannot be used to probe which addresses are taken.
 * Mail: EmailChangeConfirmEmail to the new address is must-deliver; the notice to
 * the current address is best-effort (services/users.ts sendAddressChangeEmails).
 */
export async function changeOwnAddress(
  ctx: AppContext,
  caller: Acting,
  input: { email: string; currentPassword: string },
  origin: Request,
): Promise<AddressChangeStarted> {
  const user = await existingUser(ctx, caller.id);
  await verifyCurrentPassword(ctx, origin, user.id, input.currentPassword);
  const { newEmail, token } = await issueEmailChange(ctx, user, input.email);
  return sendAddressChangeEmails(ctx, user, newEmail, token);
}

/**
 * Changes the user's own password after checking the current one (login-grade limit,
 * services/current-password.ts); every other session closes, the caller's stays. A
 * new password the policy refuses spends no attempt.
 * Mail: best-effort — PasswordChangedEmail is a notice, sent after the answer.
 */
export async function changeOwnPassword(
  ctx: AppContext,
  caller: Acting,
  input: { currentPassword: string; newPassword: string },
  origin: Request,
): Promise<User> {
  assertPasswordPolicy(input.newPassword, 'new_password');
  await verifyCurrentPassword(ctx, origin, caller.id, input.currentPassword);
  const user = await replaceOwnPassword(ctx, caller.id, { newPassword: input.newPassword, keepSid: caller.sid });
  noticeInBackground(ctx, 'password-changed notice', () => ctx.mailer.passwordChanged(user.email), { userId: user.id });
  return user;
}

/**
 * Stores the new picture, records it, then removes the previous file (or the new one,
 * should recording fail: no file is left that nothing points to).
 * Mail: none.
 */
export async function setProfilePicture(ctx: AppContext, caller: Acting, image: UploadedImage): Promise<User> {
  const stored = await storeImage(ctx, image, 'avatars');
  const { user, previous } = await replaceProfileImage(ctx, caller.id, stored.url).catch(async (error: unknown) => {
    await removeStoredFile(ctx, stored.path);
    throw error;
  });
  await removeStoredFile(ctx, previous);
  return user;
}

/** Forgets the picture, then removes its file. Mail: none. */
export async function removeProfilePicture(ctx: AppContext, caller: Acting): Promise<User> {
  const { user, previous } = await replaceProfileImage(ctx, caller.id, null);
  await removeStoredFile(ctx, previous);
  return user;
}
