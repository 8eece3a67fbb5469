// The forms of /admin/users/:id (users.manage): name and primary role, verified
// state, address, password, reset link, invitation, extra roles. Each calls the model
// or service the REST API calls; a refusal re-renders the detail page (the row's form).
import type { Request, Response } from 'express';
import { addUserRole, removeUserRole, updateUser } from '../../models/auth/admin-users.js';
import type { Call } from '../../routes/define.js';
import { changeAddressByAdministrator, resendInvitation, sendPasswordReset, setPasswordByAdministrator } from '../../services/users.js';
import { callerOf } from '../api/caller.js';
import { adminMessages } from './messages.js';
import { redirectWithFlash } from './shell.js';
import { outboxFolder } from '../../services/mail-policy.js';

type None = Record<string, never>;
type Id = { id: number };

function backToDetail(req: Request, res: Response, id: number, message: string): void {
  redirectWithFlash(req, res, `/admin/users/${id}`, message);
}

// POST /admin/users/:id {name, role?}
export async function saveUser({ ctx, req, res, params, body }: Call<Id, None, { name: string; role?: string }>): Promise<void> {
  await updateUser(ctx, callerOf(req), params.id, body);
  backToDetail(req, res, params.id, adminMessages.userSaved);
}

// POST /admin/users/:id/verify — the button «Marquer le courriel comme vérifié».
export async function markUserVerified({ ctx, req, res, params }: Call<Id>): Promise<void> {
  await updateUser(ctx, callerOf(req), params.id, { email_verified: true });
  backToDetail(req, res, params.id, adminMessages.userVerified);
}

// POST /admin/users/:id/email {email} — a link to the new address, a notice to the
// current one; an account still waiting for its invitation moves at once and gets a
// new invitation there.
export async function changeUserEmail({ ctx, req, res, params, body }: Call<Id, None, { email: string }>): Promise<void> {
  const { user, pendingEmail } = await changeAddressByAdministrator(ctx, callerOf(req), params.id, body.email);
  backToDetail(
    req,
    res,
    params.id,
    pendingEmail === null ? adminMessages.userEmailMoved(user.email, outboxFolder(ctx)) : adminMessages.userEmailPending(pendingEmail, outboxFolder(ctx)),
  );
}

// POST /admin/users/:id/password {password}
export async function saveUserPassword({ ctx, req, res, params, body }: Call<Id, None, { password: string }>): Promise<void> {
  await setPasswordByAdministrator(ctx, callerOf(req), params.id, body.password);
  backToDetail(req, res, params.id, adminMessages.userPasswordSaved);
}

// POST /admin/users/:id/send-password-reset
export async function sendUserReset({ ctx, req, res, params }: Call<Id>): Promise<void> {
  const user = await sendPasswordReset(ctx, callerOf(req), params.id);
  backToDetail(req, res, params.id, adminMessages.resetSent(user.email, outboxFolder(ctx)));
}

// POST /admin/users/:id/resend-invitation — only while the account has no password.
export async function resendUserInvitation({ ctx, req, res, params }: Call<Id>): Promise<void> {
  const user = await resendInvitation(ctx, callerOf(req), params.id);
  backToDetail(req, res, params.id, adminMessages.invitationResent(user.email, outboxFolder(ctx)));
}

// POST /admin/users/:id/roles {role_id}
export async function assignUserRole({ ctx, req, res, params, body }: Call<Id, None, { role_id: number }>): Promise<void> {
  const { added } = await addUserRole(ctx, callerOf(req), params.id, body.role_id);
  backToDetail(req, res, params.id, added ? adminMessages.roleAssigned : adminMessages.roleAlreadyHeld);
}

// POST /admin/users/:id/roles/:roleId/delete (confirmed in a <details>)
export async function revokeUserRole({ ctx, req, res, params }: Call<Id & { roleId: number }>): Promise<void> {
  await removeUserRole(ctx, callerOf(req), params.id, params.roleId);
  backToDetail(req, res, params.id, adminMessages.roleRevoked);
}
