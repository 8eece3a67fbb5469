// An account's lifecycle after its creation: suspension (sessions closed, logins
// refused, data kept), restoration, and deletion (by an administrator or by the person
// themself). Rules, each checked in the transaction that writes, on the locked row
// (models/auth/admin-rules.ts):
// - never on one's own account through the user routes (suspending oneself would lock
//   oneself out; deleting oneself goes through the profile, with the current password);
// - never on an account that holds a permission the caller lacks;
// - never on the last active administrator.
// Each change writes its audit event in the same transaction.
import { recordAudit } from '../audit.js';
import { inTransaction, type AppContext } from '../../lib/context.js';
import { ConflictError, ForbiddenError } from '../../lib/errors.js';
import { assertAnotherAdministrator, assertCanManage, lockUser } from './admin-rules.js';
import { ADMIN_ROLE, type Caller } from './roles.js';
import { revokeAllUserSessions } from './sessions.js';
import { findUserById, type User } from './users.js';
import { voidTokensOfUser } from './verifications.js';
import { lifecycleMessages } from './messages.js';

function actorOf(caller: Caller): { actor: { id: number; name: string }; ip: string | null } {
  return { actor: { id: caller.id, name: caller.name }, ip: caller.ip ?? null };
}

function userTarget(user: { id: number; name: string }): { type: string; id: number; label: string } {
  return { type: 'user', id: user.id, label: user.name };
}

function assertNotOwnAccount(caller: Caller, id: number): void {
  if (caller.id === id) throw new ForbiddenError(lifecycleMessages.ownAccountSuspension, { code: 'own_account' });
}

/** The last active administrator keeps its account usable (409 last_admin). */
async function assertNotLastAdministrator(tx: AppContext, target: { id: number; roles: string[] }): Promise<void> {
  if (!target.roles.includes(ADMIN_ROLE)) return;
  await assertAnotherAdministrator(tx, target.id).catch((error: unknown) => {
    if (error instanceof ConflictError) throw new ConflictError(lifecycleMessages.lastAdministrator, { code: 'last_admin' });
    throw error;
  });
}

/**
 * POST /app/api/users/:id/suspend: the account keeps its data; every session (and any
 * login waiting for its second factor) closes and every emailed link of the account is
 * voided in the same transaction, and its logins
 * are refused («Ce compte est suspendu.», said only
 * after the right password). A second suspension is a 409.
 */
export async function suspendUser(ctx: AppContext, caller: Caller, id: number, reason?: string): Promise<User> {
  assertNotOwnAccount(caller, id);
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    if (target.suspended_at !== null) throw new ConflictError(lifecycleMessages.alreadySuspended, { code: 'already_suspended' });
    await assertNotLastAdministrator(tx, target);
    const suspendedReason = reason?.trim() || null;
    await tx.db('app_auth_users').where({ id }).update({ suspended_at: tx.clock.now(), suspended_reason: suspendedReason, updated_at: tx.db.fn.now() });
    // Also ends any login waiting for its second factor (revokeAllUserSessions).
    const closed = await revokeAllUserSessions(tx, id);
    // Every emailed link of the account dies with the suspension (a reset, an invitation,
    // an address confirmation): a link sent before must not change the password or
    // finish the setup of an account that is shut. A restored account asks for new ones.
    const linksVoided = await voidTokensOfUser(tx, id);
    await recordAudit(tx, {
      ...actorOf(caller),
      action: 'user.suspended',
      target: userTarget(target),
      details: { reason: suspendedReason, sessions_closed: closed, links_voided: linksVoided },
    });
    return (await findUserById(tx, id))!;
  });
}

/** DELETE /app/api/users/:id/suspend: logins work again (no session is given back). */
export async function restoreUser(ctx: AppContext, caller: Caller, id: number): Promise<User> {
  assertNotOwnAccount(caller, id);
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    if (target.suspended_at === null) throw new ConflictError(lifecycleMessages.notSuspended, { code: 'not_suspended' });
    await tx.db('app_auth_users').where({ id }).update({ suspended_at: null, suspended_reason: null, updated_at: tx.db.fn.now() });
    await recordAudit(tx, { ...actorOf(caller), action: 'user.restored', target: userTarget(target) });
    return (await findUserById(tx, id))!;
  });
}

export interface DeletedAccount {
  user: User;
  /** The picture's URL, whose file the caller removes once the deletion is committed. */
  image: string | null;
}

/**
 * Deletes the account row; its sessions, tokens (a pending invitation or reset link
 * dies with them), credentials, extra roles and two-step verification go with it (ON
 * DELETE CASCADE); pages and media keep their content with their author emptied (ON
 * DELETE SET NULL, shown as «Compte supprimé»). The audit event keeps the name only.
 */
async function deleteAccountRow(tx: AppContext, target: User, event: { caller: Caller; action: string }): Promise<DeletedAccount> {
  await recordAudit(tx, { ...actorOf(event.caller), action: event.action, target: userTarget(target) });
  await tx.db('app_auth_users').where({ id: target.id }).delete();
  return { user: target, image: target.image };
}

/** DELETE /app/api/users/:id (one's own account: through the profile, 403 use_profile). */
export async function deleteUser(ctx: AppContext, caller: Caller, id: number): Promise<DeletedAccount> {
  if (caller.id === id) throw new ForbiddenError(lifecycleMessages.ownAccountDeletion, { code: 'use_profile' });
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, id);
    assertCanManage(caller, target);
    await assertNotLastAdministrator(tx, target);
    return deleteAccountRow(tx, target, { caller, action: 'user.deleted' });
  });
}

/**
 * DELETE /app/api/users/profile: a person deletes their own account (the current
 * password was checked before, services/account-lifecycle.ts); the last active
 * administrator cannot.
 */
export async function deleteOwnAccount(ctx: AppContext, caller: Caller): Promise<DeletedAccount> {
  return inTransaction(ctx, async (tx) => {
    const target = await lockUser(tx, caller.id);
    await assertNotLastAdministrator(tx, target);
    return deleteAccountRow(tx, target, { caller, action: 'account.deleted_by_self' });
  });
}
