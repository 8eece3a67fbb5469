// «Supprimer mon compte» of the profile page (/account, /admin/profile): a confirmation
// page asking for the current password, then the deletion (services/account-lifecycle.ts,
// as DELETE /app/api/users/profile). The browser lands on the login page, logged out.
import type { Request } from 'express';
import { logOutSession } from '../../middleware/session.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { deleteOwnAccountWithPassword } from '../../services/account-lifecycle.js';
import { callerOf } from '../api/caller.js';
import { renderAdmin } from '../admin/shell.js';
import { adminTitles } from '../admin/messages.js';

type None = Record<string, never>;

function base(req: Request): string {
  return req.baseUrl || '/account';
}

// GET …/delete — also the page re-rendered when the deletion is refused.
export async function confirmDeleteOwnAccount(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  await renderAdmin(call, 'account/delete.njk', { pageTitle: adminTitles.deleteOwnAccount, base: base(call.req), ...locals }, status);
}

// POST …/delete {current_password}
export async function deleteOwnAccountFromForm({ ctx, origin, req, res, body }: Call<None, None, { current_password: string }>): Promise<void> {
  await deleteOwnAccountWithPassword(ctx, callerOf(req), body.current_password, origin);
  await logOutSession(req, res);
  res.redirect(303, '/auth/login?done=deleted');
}
