// Suspension, restoration and deletion of accounts (/app/api/users/:id…, users.manage),
// a person's own deletion and data export (/app/api/users/profile…). Thin: the rules
// are in models/auth/lifecycle.ts, the use cases in services/account-lifecycle.ts.
import { logOutSession } from '../../middleware/session.js';
import type { Call } from '../../routes/define.js';
import { deleteAccount, deleteOwnAccountWithPassword, exportOwnData, restoreAccount, suspendAccount } from '../../services/account-lifecycle.js';
import { callerOf } from './caller.js';

type None = Record<string, never>;
type Id = { id: number };

// POST /app/api/users/:id/suspend {reason?} — 200 with the user; its sessions are closed.
export async function suspendUserHandler({ ctx, req, res, params, body }: Call<Id, None, { reason?: string }>): Promise<void> {
  res.json(await suspendAccount(ctx, callerOf(req), params.id, body.reason));
}

// DELETE /app/api/users/:id/suspend — 200 with the user.
export async function restoreUserHandler({ ctx, req, res, params }: Call<Id>): Promise<void> {
  res.json(await restoreAccount(ctx, callerOf(req), params.id));
}

// DELETE /app/api/users/:id — 204.
export async function deleteUserHandler({ ctx, req, res, params }: Call<Id>): Promise<void> {
  await deleteAccount(ctx, callerOf(req), params.id);
  res.status(204).end();
}

// DELETE /app/api/users/profile {current_password} — 204, session cookie cleared.
export async function deleteOwnAccountHandler({ ctx, origin, req, res, body }: Call<None, None, { current_password: string }>): Promise<void> {
  await deleteOwnAccountWithPassword(ctx, callerOf(req), body.current_password, origin);
  await logOutSession(req, res);
  res.status(204).end();
}

// GET /app/api/users/profile/export — the person's data as a JSON download.
export async function exportOwnDataHandler({ ctx, req, res }: Call): Promise<void> {
  const caller = callerOf(req);
  const data = await exportOwnData(ctx, caller);
  res.set('Content-Disposition', `attachment; filename="mes-donnees-${caller.id}.json"`);
  res.json(data);
}
