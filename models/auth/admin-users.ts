// User management by an administrator (/app/api/users): list and search, changes of
// name, primary role, verified state, address and password, extra roles, invitation
// and reset tokens (the services in services/users.ts send the emails). Rules that
// live here, inside transactions:
// - the last administrator never loses `admin` (the `admin` role row is locked, so two
//   concurrent demotions are serialised and the second sees the first);
// - no escalation: a caller grants only roles whose permissions it holds, and changes
//   another account only when that account holds no permission the caller lacks (else
//   a manager could set an administrator's password and log in as them).
import { inTransaction, type AppContext } from '../../lib/context.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { hasCredential, storePasswordHash } from './credentials.js';
import { authMessages } from './messages.js';
import { assertPasswordPolicy } from './passwords.js';
import { createUserByAdmin } from './registration.js';
import { ADMIN_ROLE, BASE_ROLE, assertWithinCallerPermissions, permissionsOfRole, rolesOfUser, type Caller, type Role } from './roles.js';
import { revokeAllUserSessions } from './sessions.js';
import { issueEmailChange, type PendingEmailChange } from './profile.js';
import { USER_COLUMNS, USER_FROM, findSessionUser, findUserById, type SessionUser, type User } from './users.js';
import { issueToken } from './verifications.js';

export const adminUserMessages = {
  notFound: 'Utilisateur introuvable.',
  unknownRole: authMessages.unknownRole,
  lastAdministrator: authMessages.lastAdministrator,
  targetOutranksCaller: 'Ce compte détient des permissions que le vôtre n’a pas : il ne peut pas être modifié depuis ce compte.',
  roleNotHeld: 'Ce compte n’a pas ce rôle.',
  baseRoleNotRemovable: 'Le rôle user est le rôle de base : il ne peut pas être retiré.',
  accountActive: authMessages.accountAlreadyActive,
} as const;

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

/** Locks the user's row for the rest of the transaction and returns it with its permissions. */
async function lockUser(tx: AppContext, id: number): Promise<SessionUser & { role_id: number }> {
  const row = await tx.db('app_auth_users').where({ id }).forUpdate().first('role_id');
  if (!row) throw new NotFoundError(adminUserMessages.notFound);
  const user = (await findSessionUser(tx, id))!;
  return { ...user, role_id: row.role_id };
}

/** No escalation through another account: the target holds nothing the caller lacks. */
function assertCanManage(caller: Caller, target: SessionUser): void {
  if (caller.id === target.id) return;
  const held = new Set(caller.permissions);
  if (!target.permissions.every((permission) => held.has(permission))) {
    throw new ForbiddenError(adminUserMessages.targetOutranksCaller, { code: 'target_outranks_caller' });
  }
}

async function roleRow(ctx: AppContext, where: { name: string } | { id: number }, field: string): Promise<{ id: number; name: string }> {
  const role = await ctx.db('app_auth_roles').where(where).first('id', 'name');
  if (!role) {
    throw new ValidationError(adminUserMessages.unknownRole, { code: 'unknown_role', details: [{ field, message: adminUserMessages.unknownRole }] });
  }
  return role;
}

async function assertCanGrant(ctx: AppContext, caller: Caller, roleId: number): Promise<void> {
  assertWithinCallerPermissions(caller, await permissionsOfRole(ctx, roleId));
}

/**
 * Called when a change takes `admin` away from the user: refuses when no other
 * administrator would remain. The lock on the admin role row serialises these checks.
 */
async function assertAnotherAdministrator(tx: AppContext, userId: number): Promise<void> {
  const admin = await tx.db('app_auth_roles').where({ name: ADMIN_ROLE }).forUpdate().first('id');
  // The system role admin is seeded by the migrations and can never be deleted.
  if (!admin) throw new Error('the admin role is missing');
  const { rows } = await tx.db.raw<{ rows: Array<{ others: number }> }>(
    `SELECT count(*)::int AS others FROM app_auth_users u
     WHERE u.id <> ? AND (u.role_id = ? OR EXISTS (SELECT 1 FROM app_auth_user_roles ur WHERE ur.user_id = u.id AND ur.role_id = ?))`,
    [userId, admin.id, admin.id],
  );
  if (rows[0].others === 0) throw new ConflictError(adminUserMessages.lastAdministrator, { code: 'last_admin' });
}

export interface NewUserByAdmin {
  email: string;
  name: string;
  role?: string;
  password?: string;
}

/**
 * POST /app/api/users. The role is checked against the caller's own permissions in
 * the transaction that creates the account (the role row is share-locked, so its
 * permissions cannot change in between).
 */
export async function createUser(ctx: AppContext, caller: Caller, data: NewUserByAdmin): Promise<{ user: User; setupToken?: string }> {
  return inTransaction(ctx, async (tx) => {
    const role = await roleRow(tx, { name: data.role ?? BASE_ROLE }, 'role');
    await tx.db('app_auth_roles').where({ id: role.id }).forShare().first('id');
    await assertCanGrant(tx, caller, role.id);
    return createUserByAdmin(tx, { email: data.email, name: data.name, role: role.name, password: data.password });
  });
}

export interface UserChanges {
  name?: string;
  role?: string;
  email_verified?: boolean;
}

/** PUT /app/api/users/:id: name, primary role (by name) and verified state only. */
export async function updateUser(ctx: AppContext, caller: Caller, id: number, changes: UserChanges): Promise<User> {
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    const update: Record<string, unknown> = { updated_at: tx.db.fn.now() };
    if (changes.name !== undefined) update.name = changes.name.trim();
    if (changes.email_verified !== undefined) update.email_verified = changes.email_verified;
    if (changes.role !== undefined) {
      const role = await roleRow(tx, { name: changes.role }, 'role');
      if (role.id !== target.role_id) {
        await assertCanGrant(tx, caller, role.id);
        // The new primary role is no longer an extra one.
        await tx.db('app_auth_user_roles').where({ user_id: id, role_id: role.id }).delete();
        const extras: string[] = target.roles.filter((name) => name !== target.role);
        if (target.role === ADMIN_ROLE && role.name !== ADMIN_ROLE && !extras.includes(ADMIN_ROLE)) await assertAnotherAdministrator(tx, id);
        update.role_id = role.id;
      }
    }
    await tx.db('app_auth_users').where({ id }).update(update);
    return (await findUserById(tx, id))!;
  });
}

/**
 * PUT /app/api/users/:id/email: an administrator starts the same address change as
 * the user's own (SPEC Events): an `email_change` token for the new address, which
 * changes only once its link is followed. No current password: the caller's right to
 * manage the account stands in for it.
 */
export async function startUserEmailChange(ctx: AppContext, caller: Caller, id: number, email: string): Promise<PendingEmailChange> {
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    return issueEmailChange(tx, target, email);
  });
}

/**
 * PUT /app/api/users/:id/password: creates or replaces the credential and closes the
 * user's sessions (except the caller's own current one when acting on itself).
 */
export async function setUserPassword(ctx: AppContext, caller: Caller & { sid?: string }, id: number, password: string): Promise<User> {
  assertPasswordPolicy(password);
  const passwordHash = await ctx.hasher.hash(password);
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    await storePasswordHash(tx, id, passwordHash);
    await revokeAllUserSessions(tx, id, caller.id === id && caller.sid ? { exceptSid: caller.sid } : {});
    return (await findUserById(tx, id))!;
  });
}

/** POST /app/api/users/:id/send-password-reset: a reset token for the user's own address. */
export async function issuePasswordResetFor(ctx: AppContext, id: number): Promise<{ user: User; token: string }> {
  return inTransaction(ctx, async (tx) => {
    const user = await getUser(tx, id);
    const { token } = await issueToken(tx, 'password_reset', user);
    return { user, token };
  });
}

/**
 * POST /app/api/users/:id/resend-invitation: a fresh `account_setup` token (the older
 * one dies) for an account that has no password yet; an active account is a 409.
 */
export async function issueInvitationAgain(ctx: AppContext, caller: Caller, id: number): Promise<{ user: User; token: string }> {
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    if (await hasCredential(tx, id)) throw new ConflictError(adminUserMessages.accountActive, { code: 'account_active' });
    const { token } = await issueToken(tx, 'account_setup', target);
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
    const role = await roleRow(tx, { id: roleId }, 'role_id');
    await assertCanGrant(tx, caller, role.id);
    if (target.roles.includes(role.name)) return { added: false };
    await tx.db('app_auth_user_roles').insert({ user_id: id, role_id: role.id }).onConflict(['user_id', 'role_id']).ignore();
    await tx.db('app_auth_users').where({ id }).update({ updated_at: tx.db.fn.now() });
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
    const role = await tx.db('app_auth_roles').where({ id: roleId }).first('id', 'name');
    if (!role || !target.roles.includes(role.name)) throw new NotFoundError(adminUserMessages.roleNotHeld);
    const primary = role.id === target.role_id;
    if (primary && role.name === BASE_ROLE) throw new ConflictError(adminUserMessages.baseRoleNotRemovable, { code: 'base_role' });
    if (role.name === ADMIN_ROLE) await assertAnotherAdministrator(tx, id);
    if (primary) {
      const base = await roleRow(tx, { name: BASE_ROLE }, 'roleId');
      await tx.db('app_auth_user_roles').where({ user_id: id, role_id: base.id }).delete();
      await tx.db('app_auth_users').where({ id }).update({ role_id: base.id, updated_at: tx.db.fn.now() });
    } else {
      await tx.db('app_auth_user_roles').where({ user_id: id, role_id: role.id }).delete();
      await tx.db('app_auth_users').where({ id }).update({ updated_at: tx.db.fn.now() });
    }
  });
}
