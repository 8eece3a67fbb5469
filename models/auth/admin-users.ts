// User management by an administrator (/app/api/users): list and search, changes of
// name, primary role, verified state, address and password, extra roles. Rules that
// live here, inside transactions:
// - the last administrator never loses `admin` (the `admin` role row is locked, so two
//   concurrent demotions are serialised and the second sees the first);
// - no escalation: a caller grants only roles whose permissions it holds, and changes
//   another account only when that account holds no permission the caller lacks (else
//   a manager could set an administrator's password and log in as them).
import { db, type Executor } from '../../lib/db.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { hashPassword } from '../../lib/password-hasher.js';
import { storePasswordHash } from './credentials.js';
import { authMessages } from './messages.js';
import { assertPasswordPolicy } from './passwords.js';
import { createUserByAdmin } from './registration.js';
import { ADMIN_ROLE, BASE_ROLE, assertWithinCallerPermissions, permissionsOfRole, rolesOfUser, type Caller, type Role } from './roles.js';
import { revokeAllUserSessions } from './sessions.js';
import { USER_COLUMNS, USER_FROM, findSessionUser, findUserById, normalizeEmail, type SessionUser, type User } from './users.js';
import { issueToken } from './verifications.js';

export const adminUserMessages = {
  notFound: 'Utilisateur introuvable.',
  unknownRole: authMessages.unknownRole,
  lastAdministrator: authMessages.lastAdministrator,
  targetOutranksCaller: 'Ce compte détient des permissions que le vôtre n’a pas : il ne peut pas être modifié depuis ce compte.',
  roleNotHeld: 'Ce compte n’a pas ce rôle.',
  baseRoleNotRemovable: 'Le rôle user est le rôle de base : il ne peut pas être retiré.',
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
export async function listUsers(options: { search?: string; limit: number; offset: number }, trx: Executor = db()): Promise<UserPage> {
  const filter = options.search ? `WHERE u.email ILIKE ? OR u.name ILIKE ?` : '';
  const filterBindings = options.search ? [likePattern(options.search), likePattern(options.search)] : [];
  const { rows } = await trx.raw(
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
    const counted = await trx.raw(`SELECT count(*)::int AS total FROM app_auth_users u ${filter}`, filterBindings);
    total = counted.rows[0].total;
  }
  return { items: rows.map(({ total: _total, ...user }: User & { total: number }) => user), total };
}

export async function getUser(id: number, trx: Executor = db()): Promise<User> {
  const user = await findUserById(id, trx);
  if (!user) throw new NotFoundError(adminUserMessages.notFound);
  return user;
}

/** Locks the user's row for the rest of the transaction and returns it with its permissions. */
async function lockUser(id: number, trx: Executor): Promise<SessionUser & { role_id: number }> {
  const row = await trx('app_auth_users').where({ id }).forUpdate().first('role_id');
  if (!row) throw new NotFoundError(adminUserMessages.notFound);
  const user = (await findSessionUser(id, trx))!;
  return { ...user, role_id: row.role_id };
}

function assertCanManage(caller: Caller, target: SessionUser): void {
  if (caller.id === target.id) return;
  const held = new Set(caller.permissions);
  if (!target.permissions.every((permission) => held.has(permission))) {
    throw new ForbiddenError(adminUserMessages.targetOutranksCaller, { code: 'target_outranks_caller' });
  }
}

async function roleRow(where: { name: string } | { id: number }, field: string, trx: Executor): Promise<{ id: number; name: string }> {
  const role = await trx('app_auth_roles').where(where).first('id', 'name');
  if (!role) {
    throw new ValidationError(adminUserMessages.unknownRole, { code: 'unknown_role', details: [{ field, message: adminUserMessages.unknownRole }] });
  }
  return role;
}

async function assertCanGrant(caller: Caller, roleId: number, trx: Executor): Promise<void> {
  assertWithinCallerPermissions(caller, await permissionsOfRole(roleId, trx));
}

/**
 * Called when a change takes `admin` away from the user: refuses when no other
 * administrator would remain. The lock on the admin role row serialises these checks.
 */
async function assertAnotherAdministrator(userId: number, trx: Executor): Promise<void> {
  const admin = await trx('app_auth_roles').where({ name: ADMIN_ROLE }).forUpdate().first('id');
  const { rows } = await trx.raw(
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

/** POST /app/api/users. The role is checked against the caller's own permissions. */
export async function createUser(caller: Caller, data: NewUserByAdmin): Promise<{ user: User; setupToken?: string }> {
  const role = await roleRow({ name: data.role ?? BASE_ROLE }, 'role', db());
  await assertCanGrant(caller, role.id, db());
  return createUserByAdmin({ email: data.email, name: data.name, role: role.name, password: data.password });
}

export interface UserChanges {
  name?: string;
  role?: string;
  email_verified?: boolean;
}

/** PUT /app/api/users/:id: name, primary role (by name) and verified state only. */
export async function updateUser(caller: Caller, id: number, changes: UserChanges): Promise<User> {
  return db().transaction(async (trx) => {
    const target = await lockUser(id, trx);
    assertCanManage(caller, target);
    const update: Record<string, unknown> = { updated_at: trx.fn.now() };
    if (changes.name !== undefined) update.name = changes.name.trim();
    if (changes.email_verified !== undefined) update.email_verified = changes.email_verified;
    if (changes.role !== undefined) {
      const role = await roleRow({ name: changes.role }, 'role', trx);
      if (role.id !== target.role_id) {
        await assertCanGrant(caller, role.id, trx);
        // The new primary role is no longer an extra one.
        await trx('app_auth_user_roles').where({ user_id: id, role_id: role.id }).delete();
        const extras: string[] = target.roles.filter((name) => name !== target.role);
        if (target.role === ADMIN_ROLE && role.name !== ADMIN_ROLE && !extras.includes(ADMIN_ROLE)) await assertAnotherAdministrator(id, trx);
        update.role_id = role.id;
      }
    }
    await trx('app_auth_users').where({ id }).update(update);
    return (await findUserById(id, trx))!;
  });
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === '23505';
}

/**
 * PUT /app/api/users/:id/email: the administrator sets the address directly (the
 * verified state is left as it is). Pending links were sent to the old address, so
 * they are all withdrawn.
 */
export async function setUserEmail(caller: Caller, id: number, email: string): Promise<User> {
  return db().transaction(async (trx) => {
    const target = await lockUser(id, trx);
    assertCanManage(caller, target);
    const address = normalizeEmail(email);
    if (address === target.email) return findUserById(id, trx) as Promise<User>;
    try {
      await trx('app_auth_users').where({ id }).update({ email: address, updated_at: trx.fn.now() });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(authMessages.emailTaken, { code: 'email_taken' });
      throw error;
    }
    await trx('app_auth_verifications').where({ user_id: id }).delete();
    return (await findUserById(id, trx))!;
  });
}

/**
 * PUT /app/api/users/:id/password: creates or replaces the credential and closes the
 * user's sessions (except the caller's own current one when acting on itself).
 */
export async function setUserPassword(caller: Caller & { sid?: string }, id: number, password: string): Promise<User> {
  assertPasswordPolicy(password);
  const passwordHash = await hashPassword(password);
  return db().transaction(async (trx) => {
    const target = await lockUser(id, trx);
    assertCanManage(caller, target);
    await storePasswordHash(id, passwordHash, trx);
    await revokeAllUserSessions(id, caller.id === id && caller.sid ? { exceptSid: caller.sid } : {}, trx);
    return (await findUserById(id, trx))!;
  });
}

/** POST /app/api/users/:id/send-password-reset: a reset token for the user's own address. */
export async function issuePasswordResetFor(id: number): Promise<{ user: User; token: string }> {
  const user = await getUser(id);
  const { token } = await issueToken('password_reset', user);
  return { user, token };
}

export async function listUserRoles(id: number, trx: Executor = db()): Promise<Array<Role & { primary: boolean }>> {
  await getUser(id, trx);
  return rolesOfUser(id, trx);
}

/** POST /app/api/users/:id/roles: adds an extra role; `added` is false when already held. */
export async function addUserRole(caller: Caller, id: number, roleId: number): Promise<{ added: boolean }> {
  return db().transaction(async (trx) => {
    const target = await lockUser(id, trx);
    assertCanManage(caller, target);
    const role = await roleRow({ id: roleId }, 'role_id', trx);
    await assertCanGrant(caller, role.id, trx);
    if (target.roles.includes(role.name)) return { added: false };
    await trx('app_auth_user_roles').insert({ user_id: id, role_id: role.id }).onConflict(['user_id', 'role_id']).ignore();
    await trx('app_auth_users').where({ id }).update({ updated_at: trx.fn.now() });
    return { added: true };
  });
}

/**
 * DELETE /app/api/users/:id/roles/:roleId. Removing an extra role deletes the link;
 * removing the primary role makes `user` (the base role, no permission) the primary
 * one, keeping the extra roles; `user` itself as primary cannot be removed.
 */
export async function removeUserRole(caller: Caller, id: number, roleId: number): Promise<void> {
  await db().transaction(async (trx) => {
    const target = await lockUser(id, trx);
    assertCanManage(caller, target);
    const role = await trx('app_auth_roles').where({ id: roleId }).first('id', 'name');
    if (!role || !target.roles.includes(role.name)) throw new NotFoundError(adminUserMessages.roleNotHeld);
    const primary = role.id === target.role_id;
    if (primary && role.name === BASE_ROLE) throw new ConflictError(adminUserMessages.baseRoleNotRemovable, { code: 'base_role' });
    if (role.name === ADMIN_ROLE) await assertAnotherAdministrator(id, trx);
    if (primary) {
      const base = await roleRow({ name: BASE_ROLE }, 'roleId', trx);
      await trx('app_auth_user_roles').where({ user_id: id, role_id: base.id }).delete();
      await trx('app_auth_users').where({ id }).update({ role_id: base.id, updated_at: trx.fn.now() });
    } else {
      await trx('app_auth_user_roles').where({ user_id: id, role_id: role.id }).delete();
      await trx('app_auth_users').where({ id }).update({ updated_at: trx.fn.now() });
    }
  });
}
