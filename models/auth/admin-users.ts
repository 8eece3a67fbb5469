// User management by an administrator (/app/api/users): list and search, changes of
// name, primary role, verified state, address and password, extra roles, invitation
// and reset tokens (the services in services/users.ts send the emails). Rules that
// live here, inside transactions:
// - the last administrator never loses `admin` (the `admin` role row is locked, so two
//   concurrent demotions are serialised and the second sees the first);
// - no escalation: a caller grants only roles whose permissions it holds, and changes
//   another account only when that account holds no permission the caller lacks (else
//   a manager could set an administrator's password and log in as them);
// - one's own address and password change through the profile (current password),
//   never through these routes (403 use_profile).
// Every check runs in the transaction that writes, on rows it has locked
// (models/auth/admin-rules.ts).
import { recordAudit, sourceOf, userTarget } from '../audit.js';
import { inTransaction, type AppContext } from '../../lib/context.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { assertAnotherAdministrator, assertCanGrant, assertCanManage, assertNotSelf, isUniqueViolation, lockRole, lockUser } from './admin-rules.js';
import { hasCredential, storePasswordHash } from './credentials.js';
import { assertPasswordPolicy } from './passwords.js';
import { ADMIN_ROLE, BASE_ROLE, rolesOfUser, type Caller, type Role } from './roles.js';
import { revokeAllUserSessions } from './sessions.js';
import { assertNewAddress, issueEmailChange, type PendingEmailChange } from './profile.js';
import { USER_COLUMNS, USER_FROM, findUserById, normalizeEmail, type User } from './users.js';
import { issueToken } from './verifications.js';
import { adminUserMessages } from './messages.js';

export interface UserPage {
  items: User[];
  total: number;
}

function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * One statement: the page of ids (with the total of matches) is picked first, then
 * only those rows are expanded with their roles.
 */
export async function listUsers(ctx: AppContext, options: { search?: string; limit: number; offset: number }): Promise<UserPage> {
  const filter = options.search ? `WHERE u.email ILIKE ? OR u.name ILIKE ?` : '';
  const filterBindings = options.search ? [likePattern(options.search), likePattern(options.search)] : [];
  const { rows } = await ctx.db.raw<{ rows: Array<User & { total: number }> }>(
    `WITH page AS (
       SELECT u.id, count(*) OVER () AS total FROM app_auth_users u ${filter}
       ORDER BY u.id LIMIT ? OFFSET ?
     )
     SELECT ${USER_COLUMNS}, page.total FROM page JOIN ${USER_FROM} ON u.id = page.id ORDER BY u.id`,
    [...filterBindings, options.limit, options.offset],
  );
  let total: number;
  if (rows.length > 0) {
    total = Number(rows[0].total);
  } else {
    // Past the last page the window gives no row: count on its own.
    const counted = await ctx.db.raw<{ rows: Array<{ total: number }> }>(`SELECT count(*)::int AS total FROM app_auth_users u ${filter}`, filterBindings);
    total = counted.rows[0].total;
  }
  return { items: rows.map(({ total: _total, ...user }) => user), total };
}

export async function getUser(ctx: AppContext, id: number): Promise<User> {
  const user = await findUserById(ctx, id);
  if (!user) throw new NotFoundError(adminUserMessages.notFound);
  return user;
}

export interface NewUserByAdmin {
  email: string;
  name: string;
  role?: string;
  password?: string;
}

/**
 * POST /app/api/users. The password is hashed first, outside the transaction (no lock
 * is held during the hash). Then, in one transaction, the role is resolved once, by
 * name, into a share-locked row; the grant is checked on it and the account inserted
 * with its id (never looked up by name again: renaming roles in between cannot swap
 * it for one the caller lacks).
 */
export async function createUser(ctx: AppContext, caller: Caller, data: NewUserByAdmin): Promise<{ user: User; setupToken?: string }> {
  if (data.password !== undefined) assertPasswordPolicy(data.password);
  const passwordHash = data.password === undefined ? undefined : await ctx.hasher.hash(data.password);
  return inTransaction(ctx, async (tx) => {
    const role = await lockRole(tx, { name: data.role ?? BASE_ROLE }, 'role');
    await assertCanGrant(tx, caller, role.id);
    const inserted = await tx
      .db('app_auth_users')
      .insert({ email: normalizeEmail(data.email), name: data.name.trim(), role_id: role.id, email_verified: passwordHash !== undefined })
      .onConflict('email')
      .ignore()
      .returning('id');
    if (inserted.length === 0) throw new ConflictError(adminUserMessages.emailTaken, { code: 'email_taken' });
    const user = (await findUserById(tx, inserted[0].id))!;
    const action = passwordHash !== undefined ? 'user.created' : 'user.invited';
    await recordAudit(tx, { ...sourceOf(caller), action, target: userTarget(user), details: { role: role.name } });
    if (passwordHash !== undefined) {
      await storePasswordHash(tx, user.id, passwordHash);
      // Read again: with its password, the account has no pending invitation.
      return { user: (await findUserById(tx, user.id))! };
    }
    const { token } = await issueToken(tx, 'account_setup', user);
    // Read again: the answer shows the invitation's expiry.
    return { user: (await findUserById(tx, user.id))!, setupToken: token };
  });
}

export interface UserChanges {
  name?: string;
  role?: string;
  email_verified?: boolean;
}

/**
 * PUT /app/api/users/:id: name, primary role (by name) and verified state only. Name
 * and roles may be changed on oneself (the grant check still applies); the verified
 * state may not.
 */
export async function updateUser(ctx: AppContext, caller: Caller, id: number, changes: UserChanges): Promise<User> {
  // The verified state of one's own address is proved by a link, not declared.
  if (changes.email_verified !== undefined) assertNotSelf(caller, id);
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    const update: Record<string, unknown> = { updated_at: tx.db.fn.now() };
    // What changed, for the audit event: before and after of each field.
    const changed: Record<string, { from: unknown; to: unknown }> = {};
    if (changes.name !== undefined) update.name = changes.name.trim();
    if (changes.name !== undefined && changes.name.trim() !== target.name) changed.name = { from: target.name, to: changes.name.trim() };
    if (changes.email_verified !== undefined) update.email_verified = changes.email_verified;
    if (changes.email_verified !== undefined && changes.email_verified !== target.email_verified) {
      changed.email_verified = { from: target.email_verified, to: changes.email_verified };
    }
    // The current primary role given again is no change (and its row is not locked:
    // deleting that role locks it first, then this user's row).
    if (changes.role !== undefined && changes.role !== target.role) {
      const role = await lockRole(tx, { name: changes.role }, 'role');
      await assertCanGrant(tx, caller, role.id);
      // The new primary role is no longer an extra one.
      await tx.db('app_auth_user_roles').where({ user_id: id, role_id: role.id }).delete();
      const extras: string[] = target.roles.filter((name) => name !== target.role);
      if (target.role === ADMIN_ROLE && role.name !== ADMIN_ROLE && !extras.includes(ADMIN_ROLE)) await assertAnotherAdministrator(tx, id);
      update.role_id = role.id;
      changed.role = { from: target.role, to: role.name };
    }
    await tx.db('app_auth_users').where({ id }).update(update);
    await recordAudit(tx, { ...sourceOf(caller), action: 'user.updated', target: userTarget(target), details: { changes: changed } });
    return (await findUserById(tx, id))!;
  });
}

export type AdministratorAddressChange =
  /** An active account: a confirmation link for the new address; nothing changes until it is followed. */
  | ({ kind: 'pending' } & PendingEmailChange)
  /** An account still waiting for its invitation: moved at once; the new invitation's token. */
  | { kind: 'moved'; user: User; token: string };

/**
 * PUT /app/api/users/:id/email. For an active account, an administrator starts the
 * same address change as the user's own (SPEC Events): an `email_change` token for the
 * new address, which changes only once its link is followed. No current password: the
 * caller's right to manage the account stands in for it (never for its own account).
 * An account that has no password yet (its invitation not followed) has nothing to
 * protect at the old address: it moves at once, every link sent there dies, and a new
 * `account_setup` token comes back for the invitation to the new address.
 */
export async function startUserEmailChange(ctx: AppContext, caller: Caller, id: number, email: string): Promise<AdministratorAddressChange> {
  assertNotSelf(caller, id);
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    if (await hasCredential(tx, id)) {
      const pending = await issueEmailChange(tx, target, email);
      // The new address is not recorded: it is typed, and not the account's yet.
      await recordAudit(tx, { ...sourceOf(caller), action: 'user.email_change_requested', target: userTarget(target) });
      return { kind: 'pending', ...pending };
    }
    const newEmail = await assertNewAddress(tx, target, email);
    await tx
      .db('app_auth_users')
      .where({ id })
      .update({ email: newEmail, updated_at: tx.db.fn.now() })
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) throw new ConflictError(adminUserMessages.emailTaken, { code: 'email_taken' });
        throw error;
      });
    await tx.db('app_auth_verifications').where({ user_id: id }).delete();
    const { token } = await issueToken(tx, 'account_setup', { id, email: newEmail });
    await recordAudit(tx, { ...sourceOf(caller), action: 'user.email_changed', target: userTarget(target), details: { invitation: true } });
    return { kind: 'moved', user: (await findUserById(tx, id))!, token };
  });
}

/**
 * PUT /app/api/users/:id/password: creates or replaces the credential and closes every
 * session of the user (one's own password changes through the profile).
 */
export async function setUserPassword(ctx: AppContext, caller: Caller, id: number, password: string): Promise<User> {
  assertNotSelf(caller, id);
  assertPasswordPolicy(password);
  const passwordHash = await ctx.hasher.hash(password);
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    await storePasswordHash(tx, id, passwordHash);
    const sessionsClosed = await revokeAllUserSessions(tx, id);
    await recordAudit(tx, { ...sourceOf(caller), action: 'user.password_set', target: userTarget(target), details: { sessions_closed: sessionsClosed } });
    return (await findUserById(tx, id))!;
  });
}

/**
 * POST /app/api/users/:id/send-password-reset: a reset token for the user's own
 * address. It voids the account's pending reset link, so it follows the same rule as
 * any other change: not on an account that outranks the caller, not on oneself.
 */
export async function issuePasswordResetFor(ctx: AppContext, caller: Caller, id: number): Promise<{ user: User; token: string }> {
  assertNotSelf(caller, id);
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    const { token } = await issueToken(tx, 'password_reset', target);
    await recordAudit(tx, { ...sourceOf(caller), action: 'user.password_reset_sent', target: userTarget(target) });
    return { user: (await findUserById(tx, id))!, token };
  });
}

/**
 * POST /app/api/users/:id/invitation (and …/resend-invitation): a fresh `account_setup`
 * token (the older one dies) for an account that has no password yet; an active
 * account is a 409. Audited (user.invitation_resent) in the same transaction.
 */
export async function issueInvitationAgain(ctx: AppContext, caller: Caller, id: number): Promise<{ user: User; token: string }> {
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    if (await hasCredential(tx, id)) throw new ConflictError(adminUserMessages.accountActive, { code: 'account_active' });
    const { token } = await issueToken(tx, 'account_setup', target);
    await recordAudit(tx, {
      actor: { id: caller.id, name: caller.name },
      ip: caller.ip ?? null,
      action: 'user.invitation_resent',
      target: { type: 'user', id, label: target.name },
    });
    return { user: (await findUserById(tx, id))!, token };
  });
}

export async function listUserRoles(ctx: AppContext, id: number): Promise<Array<Role & { primary: boolean }>> {
  await getUser(ctx, id);
  return rolesOfUser(ctx, id);
}

/** POST /app/api/users/:id/roles: adds an extra role; `added` is false when already held. */
export async function addUserRole(ctx: AppContext, caller: Caller, id: number, roleId: number): Promise<{ added: boolean }> {
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    // Already the primary role: nothing to add, and no lock on a role being deleted.
    if (roleId === target.role_id) return { added: false };
    const role = await lockRole(tx, { id: roleId }, 'role_id');
    await assertCanGrant(tx, caller, role.id);
    if (target.roles.includes(role.name)) return { added: false };
    await tx.db('app_auth_user_roles').insert({ user_id: id, role_id: role.id }).onConflict(['user_id', 'role_id']).ignore();
    await tx.db('app_auth_users').where({ id }).update({ updated_at: tx.db.fn.now() });
    await recordAudit(tx, { ...sourceOf(caller), action: 'user.role_added', target: userTarget(target), details: { role: role.name } });
    return { added: true };
  });
}

/**
 * DELETE /app/api/users/:id/roles/:roleId. Removing an extra role deletes the link;
 * removing the primary role makes `user` (the base role, no permission) the primary
 * one, keeping the extra roles; `user` itself as primary cannot be removed.
 */
export async function removeUserRole(ctx: AppContext, caller: Caller, id: number, roleId: number): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    // Withdrawing grants nothing: the role row needs no lock (a concurrent deletion
    // removes the same link).
    const role = await tx.db('app_auth_roles').where({ id: roleId }).first('id', 'name');
    if (!role || !target.roles.includes(role.name)) throw new NotFoundError(adminUserMessages.roleNotHeld);
    const primary = role.id === target.role_id;
    if (primary && role.name === BASE_ROLE) throw new ConflictError(adminUserMessages.baseRoleNotRemovable, { code: 'base_role' });
    if (role.name === ADMIN_ROLE) await assertAnotherAdministrator(tx, id);
    if (primary) {
      // The system role user is seeded by the migrations and can never be deleted nor renamed.
      const base = (await tx.db('app_auth_roles').where({ name: BASE_ROLE }).first('id'))!;
      await tx.db('app_auth_user_roles').where({ user_id: id, role_id: base.id }).delete();
      await tx.db('app_auth_users').where({ id }).update({ role_id: base.id, updated_at: tx.db.fn.now() });
    } else {
      await tx.db('app_auth_user_roles').where({ user_id: id, role_id: role.id }).delete();
      await tx.db('app_auth_users').where({ id }).update({ updated_at: tx.db.fn.now() });
    }
    await recordAudit(tx, { ...sourceOf(caller), action: 'user.role_removed', target: userTarget(target), details: { role: role.name, primary } });
  });
}
