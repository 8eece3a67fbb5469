// Use cases of the logged-in user on their own account, called by both
// /app/api/users/profile and the profile page (/account, /admin/profile).
import type { AppContext } from '../lib/context.js';
import { removeStoredFile, storeImage, type UploadedImage } from '../lib/uploads.js';
import { changePassword, replaceProfileImage, startEmailChange } from '../models/auth/profile.js';
import type { User } from '../models/auth/users.js';
import { noticeInBackground } from './mail-policy.js';
import { sendAddressChangeEmails, type Acting, type AddressChangeStarted } from './users.js';

/**
 * Starts the user's own address change, after checking the current password.
 * Mail: EmailChangeConfirmEmail to the new address is must-deliver; the notice to
 * the current address is best-effort (services/users.ts sendAddressChangeEmails).
 */
export async function changeOwnAddress(ctx: AppContext, caller: Acting, input: { email: string; currentPassword: string }): Promise<AddressChangeStarted> {
  const { user, newEmail, token } = await startEmailChange(ctx, caller.id, input);
  return sendAddressChangeEmails(ctx, user, newEmail, token);
}

/**
 * Changes the user's own password after checking the current one; every other
 * session closes, the caller's stays.
 * Mail: best-effort — PasswordChangedEmail is a notice, sent after the answer.
 */
export async function changeOwnPassword(ctx: AppContext, caller: Acting, input: { currentPassword: string; newPassword: string }): Promise<User> {
  const user = await changePassword(ctx, caller.id, { ...input, keepSid: caller.sid });
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
