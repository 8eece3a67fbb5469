// The logged-in user's own account (/app/api/users/profile, /account): name, address
// change confirmed by a link sent to the new address (also started by an
// administrator, models/auth/admin-users.ts), password change, picture. The emails
// and the picture files are handled by the services (services/profile.ts,
// services/users.ts).
import { inTransaction, type AppContext } from '../../lib/context.js';
import { ConflictError, NotFoundError, UserFacingError } from '../../lib/errors.js';
import { hashToken } from '../../lib/tokens.js';
import { recordAudit, sourceOf, userTarget } from '../audit.js';
import { storePasswordHash } from './credentials.js';
import { profileMessages } from './messages.js';
import { assertPasswordPolicy } from './passwords.js';
import { revokeAllUserSessions } from './sessions.js';
import { findUserById, normalizeEmail, type User } from './users.js';
import { consumeToken, issueToken } from './verifications.js';

/** The account of a logged-in user (a 404 if it was deleted meanwhile). */
export async function existingUser(ctx: AppContext, userId: number): Promise<User> {
  const user = await findUserById(ctx, userId);
  if (!user) throw new NotFoundError(profileMessages.notFound);
  return user;
}

export async function updateProfileName(ctx: AppContext, userId: number, name: string): Promise<User> {
  await ctx.db('app_auth_users').where({ id: userId }).update({ name: name.trim(), updated_at: ctx.db.fn.now() });
  return existingUser(ctx, userId);
}

export interface PendingEmailChange {
  /** The account as it is (still at its current address). */
  user: User;
  newEmail: string;
  /** For the link of EmailChangeConfirmEmail, sent to newEmail. */
  token: string;
}

/**
 * The new address of an address change, normalised: refuses the account's own address
 * and one another account uses (the unique index stays the guarantee at the write).
 */
export async function assertNewAddress(ctx: AppContext, user: { email: string }, email: string): Promise<string> {
  const newEmail = normalizeEmail(email);
  if (newEmail === user.email) throw new UserFacingError(profileMessages.sameEmail, { code: 'same_email' });
  const taken = await ctx.db('app_auth_users').where({ email: newEmail }).first('id');
  if (taken) throw new ConflictError(profileMessages.emailTaken, { code: 'email_taken' });
  return newEmail;
}

/**
 * Issues an `email_change` token (24 h) carrying the new address, after refusing the
 * account's own address and one another account uses. The address itself changes
 * only when the link is followed (confirmEmailChange).
 */
export async function issueEmailChange(ctx: AppContext, user: { id: number; email: string }, email: string): Promise<PendingEmailChange> {
  const newEmail = await assertNewAddress(ctx, user, email);
  const { token } = await issueToken(ctx, 'email_change', user, { newEmail });
  return { user: await existingUser(ctx, user.id), newEmail, token };
}

export type EmailChangeOutcome =
  | { status: 'confirmed'; user: User; oldEmail: string }
  /** Unknown, expired or used link, or the account changed address in between. */
  | { status: 'invalid' }
  /** Another account took the new address after the link was sent. */
  | { status: 'taken' };

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === '23505';
}

/**
 * Whether a confirmation link would be accepted, without consuming it: the page the
 * link opens (GET /app/api/users/email/confirm) says at once when it is dead, and a
 * mail scanner that opens it changes nothing.
 */
export async function isEmailChangeLinkValid(ctx: AppContext, token: string): Promise<boolean> {
  // The link dies when the account changed address after it was sent.
  const { rows } = await ctx.db.raw<{ rows: Array<{ id: number }> }>(
    `SELECT v.id FROM app_auth_verifications v JOIN app_auth_users u ON u.id = v.user_id
     WHERE v.kind = 'email_change' AND v.token_hash = ? AND v.expires_at > ? AND u.email = v.identifier`,
    [hashToken(token), ctx.clock.now()],
  );
  return rows.length > 0;
}

/**
 * POST /app/api/users/email/confirm (the button of the page the link opens): consumes
 * the link (once), then moves the account to the new address, which the link proved
 * to be reachable, so it is verified. The link dies if the account changed address in
 * between. Refusals are outcomes, not errors: a browser is redirected either way, a
 * JSON client gets the matching error.
 */
export async function confirmEmailChange(ctx: AppContext, token: string, ip: string | null = null): Promise<EmailChangeOutcome> {
  return inTransaction(ctx, async (tx) => {
    const consumed = await consumeToken(tx, 'email_change', undefined, token);
    const newEmail = typeof consumed?.payload.newEmail === 'string' ? normalizeEmail(consumed.payload.newEmail) : undefined;
    const current = consumed ? await tx.db('app_auth_users').where({ id: consumed.userId }).forUpdate().first('email') : undefined;
    if (!consumed || !newEmail || !current || current.email !== consumed.identifier) return { status: 'invalid' };
    const taken = await tx.db('app_auth_users').where({ email: newEmail }).whereNot({ id: consumed.userId }).first('id');
    if (taken) return { status: 'taken' };
    // An account created with this address after the check above still loses to the
    // unique index: in a savepoint, so that the link is consumed all the same.
    const moved = await inTransaction(tx, async (savepoint) => {
      await savepoint.db('app_auth_users').where({ id: consumed.userId }).update({ email: newEmail, email_verified: true, updated_at: savepoint.db.fn.now() });
      return true;
    }).catch((error: unknown) => {
      if (isUniqueViolation(error)) return false;
      throw error;
    });
    if (!moved) return { status: 'taken' };
    // Links sent to the old address (reset, verification, invitation) no longer apply.
    await tx.db('app_auth_verifications').where({ user_id: consumed.userId }).delete();
    const user = (await findUserById(tx, consumed.userId))!;
    // The link proves its follower reads the new address: the account acts. No address
    // is recorded (the log keeps names, not addresses).
    await recordAudit(tx, { ...sourceOf({ ...user, ip }), action: 'account.email_changed', target: userTarget(user) });
    return { status: 'confirmed', user, oldEmail: current.email };
  });
}

/** The errors a JSON client gets for a refused confirmation. */
export function emailChangeRefusal(outcome: { status: 'invalid' | 'taken' }): UserFacingError | ConflictError {
  return outcome.status === 'taken'
    ? new ConflictError(profileMessages.emailTaken, { code: 'email_taken' })
    : new UserFacingError(profileMessages.invalidLink, { code: 'invalid_token' });
}

/**
 * Replaces the user's own password (the caller has checked the current one); every
 * other session of the account is closed, the caller's (keepSid) stays open.
 */
export async function replaceOwnPassword(
  ctx: AppContext,
  caller: { id: number; name: string; ip: string | null },
  input: { newPassword: string; keepSid?: string },
): Promise<User> {
  assertPasswordPolicy(input.newPassword, 'new_password');
  const user = await existingUser(ctx, caller.id);
  const passwordHash = await ctx.hasher.hash(input.newPassword);
  await inTransaction(ctx, async (tx) => {
    await storePasswordHash(tx, caller.id, passwordHash);
    const closed = await revokeAllUserSessions(tx, caller.id, input.keepSid ? { exceptSid: input.keepSid } : {});
    await recordAudit(tx, { ...sourceOf(caller), action: 'account.password_changed', target: userTarget(user), details: { sessions_closed: closed } });
  });
  return user;
}

/**
 * Records the picture URL (null: none) and returns the previous one, for the caller
 * to delete its file once this is committed (services/profile.ts).
 */
export async function replaceProfileImage(ctx: AppContext, userId: number, image: string | null): Promise<{ user: User; previous: string | null }> {
  return inTransaction(ctx, async (tx) => {
    const row = await tx.db('app_auth_users').where({ id: userId }).forUpdate().first('image');
    if (!row) throw new NotFoundError(profileMessages.notFound);
    await tx.db('app_auth_users').where({ id: userId }).update({ image, updated_at: tx.db.fn.now() });
    return { user: (await findUserById(tx, userId))!, previous: row.image };
  });
}
