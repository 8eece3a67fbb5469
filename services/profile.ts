// Use cases of the logged-in user on their own account, called by both
// /app/api/users/profile and the profile page (/account, /admin/profile).
import { inTransaction, type AppContext } from '../lib/context.js';
import type { Origin } from '../lib/origin.js';
import { recordAudit, sourceOf, userTarget } from '../models/audit.js';
import { storedName } from '../lib/upload-names.js';
import { removeStoredFile, storeImage, type UploadedImage } from '../lib/uploads.js';
import { assertPasswordPolicy } from '../models/auth/passwords.js';
import { publicSessionId, revokeAllUserSessions, revokeUserSession } from '../models/auth/sessions.js';
import { existingUser, issueEmailChange, replaceOwnPassword, replaceProfileImage } from '../models/auth/profile.js';
import type { User } from '../models/auth/users.js';
import { verifyCurrentPassword } from './current-password.js';
import { noticeInBackground } from './mail-policy.js';
import { sendAddressChangeEmails, type Acting, type AddressChangeStarted } from './users.js';

/**
 * Starts the user's own address change. The current password is checked first (with
 * the login-grade limit of services/current-password.ts, hence the origin), so the
 * form cannot be used to probe which addresses are taken.
 * Mail: EmailChangeConfirmEmail to the new address is must-deliver; the notice to
 * the current address is best-effort (services/users.ts sendAddressChangeEmails).
 */
export async function changeOwnAddress(
  ctx: AppContext,
  caller: Acting,
  input: { email: string; currentPassword: string },
  origin: Origin,
): Promise<AddressChangeStarted> {
  const user = await existingUser(ctx, caller.id);
  await verifyCurrentPassword(ctx, origin, user.id, input.currentPassword);
  // The link and its audit event together (the new address is not recorded: typed).
  const { newEmail, token } = await inTransaction(ctx, async (tx) => {
    const pending = await issueEmailChange(tx, user, input.email);
    await recordAudit(tx, { ...sourceOf(caller), action: 'account.email_change_requested', target: userTarget(user) });
    return pending;
  });
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
  origin: Origin,
): Promise<User> {
  assertPasswordPolicy(input.newPassword, 'new_password');
  await verifyCurrentPassword(ctx, origin, caller.id, input.currentPassword);
  const user = await replaceOwnPassword(ctx, caller, { newPassword: input.newPassword, keepSid: caller.sid });
  noticeInBackground(ctx, 'password-changed notice', () => ctx.mailer.passwordChanged(user.email), { userId: user.id });
  return user;
}

/**
 * Stores the new picture, records it, then removes the previous file (or the new one,
 * should recording fail: no file is left that nothing points to). With database
 * storage the previous bytes go in the recording's transaction.
 * Mail: none.
 */
export async function setProfilePicture(ctx: AppContext, caller: Acting, image: UploadedImage): Promise<User> {
  const stored = await storeImage(ctx, image, 'avatars');
  const { user, previous } = await replacePicture(ctx, caller.id, stored.url).catch(async (error: unknown) => {
    await removeStoredFile(ctx, stored.path);
    throw error;
  });
  await removeStoredFile(ctx, previous);
  return user;
}

/** Forgets the picture, then removes its file. Mail: none. */
export async function removeProfilePicture(ctx: AppContext, caller: Acting): Promise<User> {
  const { user, previous } = await replacePicture(ctx, caller.id, null);
  await removeStoredFile(ctx, previous);
  return user;
}

/** Records the new picture and drops the previous one's database copy in the same transaction. */
function replacePicture(ctx: AppContext, userId: number, image: string | null): ReturnType<typeof replaceProfileImage> {
  return inTransaction(ctx, async (tx) => {
    const replaced = await replaceProfileImage(tx, userId, image);
    const name = replaced.previous ? storedName(replaced.previous) : undefined;
    if (name) await tx.uploads.database.remove(name, tx.db);
    return replaced;
  });
}

/**
 * Closes one of the caller's own sessions (false: not one of theirs) and records it,
 * in one transaction. The controller logs out when it was the current one.
 */
export async function revokeOwnSession(ctx: AppContext, caller: Acting, publicId: string): Promise<boolean> {
  return inTransaction(ctx, async (tx) => {
    if (!(await revokeUserSession(tx, caller.id, publicId))) return false;
    await recordAudit(tx, {
      ...sourceOf(caller),
      action: 'account.session_revoked',
      target: userTarget(caller),
      details: { current: caller.sid !== undefined && publicSessionId(caller.sid) === publicId },
    });
    return true;
  });
}

/** Closes every session of the caller (but the current one with keepCurrent) and records it. */
export async function revokeOwnSessions(ctx: AppContext, caller: Acting, options: { keepCurrent: boolean }): Promise<number> {
  return inTransaction(ctx, async (tx) => {
    const revoked = await revokeAllUserSessions(tx, caller.id, options.keepCurrent && caller.sid ? { exceptSid: caller.sid } : {});
    await recordAudit(tx, {
      ...sourceOf(caller),
      action: 'account.sessions_revoked',
      target: userTarget(caller),
      details: { revoked, kept_current: options.keepCurrent },
    });
    return revoked;
  });
}
