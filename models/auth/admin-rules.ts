// The rules every change of an account by an administrator passes (models/auth/
// admin-users.ts), each on rows locked by the transaction that writes:
// - the target's row FOR UPDATE (lockUser), then the outranking rule: a manager
//   changes another account only when it holds every permission of that account;
// - one's own address, password and verified state go through the profile;
// - a role is resolved once and share-locked (lockRole) before the grant check, so it
//   can be neither renamed, re-permissioned nor deleted before the write commits;
// - the `admin` role row FOR UPDATE before counting the other administrators.
import type { AppContext } from '../../lib/context.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { adminUserMessages } from './messages.js';
import { ADMIN_ROLE, assertWithinCallerPermissions, permissionsOfRole, type Caller } from './roles.js';
import { findSessionUser, type SessionUser } from './users.js';

/** Locks the user's row for the rest of the transaction and returns it with its permissions. */
export async function lockUser(tx: AppContext, id: number): Promise<SessionUser & { role_id: number }> {
  const row = await tx.db('app_auth_users').where({ id }).forUpdate().first('role_id');
  if (!row) throw new NotFoundError(adminUserMessages.notFound);
  const user = (await findSessionUser(tx, id))!;
  return { ...user, role_id: row.role_id };
}

/** No escalation through another account: the target holds nothing the caller lacks. */
export function assertCanManage(caller: Caller, target: SessionUser): void {
  if (caller.id === target.id) return;
  const held = new Set(caller.permissions);
  if (!target.permissions.every((permission) => held.has(permission))) {
    throw new ForbiddenError(adminUserMessages.targetOutranksCaller, { code: 'target_outranks_caller' });
  }
}

/**
 * One's own address, password and verified state change through the profile, which
 * asks for the current password (services/profile.ts): the right to manage accounts
 * must not stand in for it, or a stolen session of a manager would take the account.
 */
export function assertNotSelf(caller: Caller, id: number): void {
  if (caller.id === id) throw new ForbiddenError(adminUserMessages.useProfile, { code: 'use_profile' });
}

/**
 * Resolves a role once, by name or id, and share-locks its row for the rest of the
 * transaction: until it commits the role can be neither renamed, nor given other
 * permissions, nor deleted, so the grant check and the write see the same role. A role
 * renamed or deleted while we waited for the lock no longer matches: unknown.
 */
export async function lockRole(tx: AppContext, where: { name: string } | { id: number }, field: string): Promise<{ id: number; name: string }> {
  const role = await tx.db('app_auth_roles').where(where).forShare().first('id', 'name');
  if (!role) {
    throw new ValidationError(adminUserMessages.unknownRole, { code: 'unknown_role', details: [{ field, message: adminUserMessages.unknownRole }] });
  }
  return role;
}

/** The grant check, on a role locked by lockRole in the same transaction. */
export async function assertCanGrant(tx: AppContext, caller: Caller, roleId: number): Promise<void> {
  assertWithinCallerPermissions(caller, await permissionsOfRole(tx, roleId));
}

/**
 * Called when a change takes `admin` away from the user (or suspends or deletes an
 * administrator): refuses when no other active administrator would remain; a
 * suspended one cannot log in, so it does not count. The lock on the admin role row
 * serialises these checks.
 */
export async function assertAnotherAdministrator(tx: AppContext, userId: number): Promise<void> {
  const admin = await tx.db('app_auth_roles').where({ name: ADMIN_ROLE }).forUpdate().first('id');
  // The system role admin is seeded by the migrations and can never be deleted.
  if (!admin) throw new Error('the admin role is missing');
  const { rows } = await tx.db.raw<{ rows: Array<{ others: number }> }>(
    `SELECT count(*)::int AS others FROM app_auth_users u
     WHERE u.id <> ? AND u.suspended_at IS NULL AND (u.role_id = ? OR EXISTS (SELECT 1 FROM app_auth_user_roles ur WHERE ur.user_id = u.id AND ur.role_id = ?))`,
    [userId, admin.id, admin.id],
  );
  if (rows[0].others === 0) throw new ConflictError(adminUserMessages.lastAdministrator, { code: 'last_admin' });
}

export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === '23505';
}
