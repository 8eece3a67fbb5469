// The lifecycle forms of /admin/users/:id (users.manage): «Suspendre» and «Supprimer»,
// each with a confirmation page (no JavaScript), and «Rétablir». Same use cases as the
// REST API (services/account-lifecycle.ts); a refusal re-renders the confirmation page
// (or the detail page, for «Rétablir») with the message.
import { getUser } from '../../models/auth/admin-users.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { deleteAccount, restoreAccount, suspendAccount } from '../../services/account-lifecycle.js';
import { callerOf } from '../api/caller.js';
import { adminMessages, adminTitles } from './messages.js';
import { pathId, redirectWithFlash, renderAdmin } from './shell.js';

type None = Record<string, never>;
type Id = { id: number };

// GET /admin/users/:id/suspend — the confirmation page, with an optional reason.
export async function confirmSuspendUser(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const target = await getUser(call.ctx, pathId(call));
  await renderAdmin(call, 'admin/users/suspend.njk', { pageTitle: adminTitles.suspendUser(target.name), target, values: {}, ...locals }, status);
}

// POST /admin/users/:id/suspend {reason}
export async function suspendUserFromForm({ ctx, req, res, params, body }: Call<Id, None, { reason: string }>): Promise<void> {
  const user = await suspendAccount(ctx, callerOf(req), params.id, body.reason);
  redirectWithFlash(req, res, `/admin/users/${params.id}`, adminMessages.userSuspended(user.name));
}

// POST /admin/users/:id/restore — «Rétablir» (confirmed in a <details>).
export async function restoreUserFromForm({ ctx, req, res, params }: Call<Id>): Promise<void> {
  const user = await restoreAccount(ctx, callerOf(req), params.id);
  redirectWithFlash(req, res, `/admin/users/${params.id}`, adminMessages.userRestored(user.name));
}

// GET /admin/users/:id/delete — the confirmation page.
export async function confirmDeleteUser(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const target = await getUser(call.ctx, pathId(call));
  await renderAdmin(call, 'admin/users/delete.njk', { pageTitle: adminTitles.deleteUser(target.name), target, ...locals }, status);
}

// POST /admin/users/:id/delete
export async function deleteUserFromForm({ ctx, req, res, params }: Call<Id>): Promise<void> {
  const user = await deleteAccount(ctx, callerOf(req), params.id);
  redirectWithFlash(req, res, '/admin/users', adminMessages.userDeleted(user.name));
}
