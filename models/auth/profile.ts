// The logged-in user's own account (/app/api/users/profile): name, address change
// confirmed by a link sent to the new address, password change, picture.
import { db } from '../../lib/db.js';
import { ConflictError, NotFoundError, UserFacingError } from '../../lib/errors.js';
import { hashPassword } from '../../lib/password-hasher.js';
import { removeStoredFile, storeImage, type UploadedImage } from '../../lib/uploads.js';
import { checkPassword, storePasswordHash } from './credentials.js';
import { authMessages } from './messages.js';
import { assertPasswordPolicy } from './passwords.js';
import { revokeAllUserSessions } from './sessions.js';
import { findUserById, normalizeEmail, type User } from './users.js';
import { consumeToken, issueToken } from './verifications.js';

export const profileMessages = {
  notFound: 'Utilisateur introuvable.',
  sameEmail: 'Ce courriel est déjà celui du compte.',
  currentPasswordWrong: authMessages.currentPasswordWrong,
  invalidLink: authMessages.invalidOrExpiredLink,
  emailTaken: authMessages.emailTaken,
} as const;

function currentPasswordWrong(): UserFacingError {
  return new UserFacingError(profileMessages.currentPasswordWrong, {
    code: 'current_password_wrong',
    details: [{ field: 'current_password', message: profileMessages.currentPasswordWrong }],
  });
}

async function existingUser(userId: number): Promise<User> {
  const user = await findUserById(userId);
  if (!user) throw new NotFoundError(profileMessages.notFound);
  return user;
}

export async function updateProfileName(userId: number, name: string): Promise<User> {
  await db()('app_auth_users').where({ id: userId }).update({ name: name.trim(), updated_at: db().fn.now() });
  return existingUser(userId);
}

/**
 * Starts an address change: the current password is required; an `email_change`
 * token (24 h) carrying the new address is issued for the caller to send to it. The
 * address itself changes only when the link is followed (confirmEmailChange).
 */
export async function startEmailChange(
  userId: number,
  input: { email: string; currentPassword: string },
): Promise<{ user: User; newEmail: string; token: string }> {
  const user = await existingUser(userId);
  const newEmail = normalizeEmail(input.email);
  if (!(await checkPassword(user.id, input.currentPassword))) throw currentPasswordWrong();
  if (newEmail === user.email) throw new UserFacingError(profileMessages.sameEmail, { code: 'same_email' });
  const taken = await db()('app_auth_users').where({ email: newEmail }).first('id');
  if (taken) throw new ConflictError(profileMessages.emailTaken, { code: 'email_taken' });
  const { token } = await issueToken('email_change', user, { newEmail });
  return { user, newEmail, token };
}

/**
 * GET /app/api/users/email/confirm: consumes the link (once), then moves the account
 * to the new address, which the link proved to be reachable, so it is verified. The
 * link dies if the account changed address in between.
 */
export async function confirmEmailChange(token: string): Promise<{ user: User; oldEmail: string }> {
  return db().transaction(async (trx) => {
    const consumed = await consumeToken('email_change', undefined, token, trx);
    const newEmail = typeof consumed?.payload.newEmail === 'string' ? normalizeEmail(consumed.payload.newEmail) : undefined;
    const current = consumed ? await trx('app_auth_users').where({ id: consumed.userId }).forUpdate().first('email') : undefined;
    if (!consumed || !newEmail || !current || current.email !== consumed.identifier) {
      throw new UserFacingError(profileMessages.invalidLink, { code: 'invalid_token' });
    }
    const taken = await trx('app_auth_users').where({ email: newEmail }).whereNot({ id: consumed.userId }).first('id');
    if (taken) throw new ConflictError(profileMessages.emailTaken, { code: 'email_taken' });
    await trx('app_auth_users').where({ id: consumed.userId }).update({ email: newEmail, email_verified: true, updated_at: trx.fn.now() });
    // Links sent to the old address (reset, verification) no longer apply.
    await trx('app_auth_verifications').where({ user_id: consumed.userId }).delete();
    return { user: (await findUserById(consumed.userId, trx))!, oldEmail: current.email };
  });
}

/**
 * Changes the password after checking the current one; every other session of the
 * account is closed, the caller's (keepSid) stays open.
 */
export async function changePassword(
  userId: number,
  input: { currentPassword: string; newPassword: string; keepSid?: string },
): Promise<User> {
  assertPasswordPolicy(input.newPassword, 'new_password');
  const user = await existingUser(userId);
  if (!(await checkPassword(user.id, input.currentPassword))) throw currentPasswordWrong();
  const passwordHash = await hashPassword(input.newPassword);
  await db().transaction(async (trx) => {
    await storePasswordHash(userId, passwordHash, trx);
    await revokeAllUserSessions(userId, input.keepSid ? { exceptSid: input.keepSid } : {}, trx);
  });
  return user;
}

/** Sets (or clears, with null) the picture URL; returns the previous one for the caller to delete. */
/**
 * Stores a new profile picture and records it; the previous file is removed once the
 * new one is recorded (and the new file, should recording fail).
 */
export async function setProfilePicture(userId: number, image: UploadedImage): Promise<User> {
  const stored = await storeImage(image, 'avatars');
  let result;
  try {
    result = await replaceProfileImage(userId, stored.url);
  } catch (error) {
    await removeStoredFile(stored.path);
    throw error;
  }
  await removeStoredFile(result.previous);
  return result.user;
}

/** Forgets the profile picture and removes its file. */
export async function removeProfilePicture(userId: number): Promise<User> {
  const { user, previous } = await replaceProfileImage(userId, null);
  await removeStoredFile(previous);
  return user;
}

async function replaceProfileImage(userId: number, image: string | null): Promise<{ user: User; previous: string | null }> {
  return db().transaction(async (trx) => {
    const row = await trx('app_auth_users').where({ id: userId }).forUpdate().first('image');
    if (!row) throw new NotFoundError(profileMessages.notFound);
    await trx('app_auth_users').where({ id: userId }).update({ image, updated_at: trx.fn.now() });
    return { user: (await findUserById(userId, trx))!, previous: row.image };
  });
}
