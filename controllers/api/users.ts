// User management, /app/api/users (SPEC A6, A7). Thin: the row's guard and schemas ran
// before; the use cases that send email are in services/users.ts.
import type { Call } from '../../routes/define.js';
import type { CreateUserBody, Page, UpdateUserBody } from '../../routes/api/schemas.js';
import { addUserRole, getUser, listUserRoles, listUsers, removeUserRole, updateUser } from '../../models/auth/admin-users.js';
import { changeAddressByAdministrator, inviteUser, resendInvitation, sendPasswordReset, setPasswordByAdministrator } from '../../services/users.js';
import { callerOf, listBody, wholeList } from './caller.js';

type Id = { id: number };

// GET /app/api/users?search=&limit=&offset=
export async function listUsersHandler({ ctx, res, query }: Call<Record<string, never>, Page & { search?: string }>): Promise<void> {
  const page = await listUsers(ctx, { search: query.search || undefined, limit: query.limit, offset: query.offset });
  res.json(listBody(page.items, page.total, query.limit, query.offset));
}

// POST /app/api/users — with a password: verified, can log in; without: invitation
// email, and `invitation_sent` says whether it left (the account exists either way).
export async function createUserHandler({ ctx, req, res, body }: Call<Record<string, never>, Record<string, never>, CreateUserBody>): Promise<void> {
  const { user, invitationSent } = await inviteUser(ctx, callerOf(req), body);
  res.status(201).json(invitationSent === undefined ? user : { ...user, invitation_sent: invitationSent });
}

// GET /app/api/users/:id
export async function showUserHandler({ ctx, res, params }: Call<Id>): Promise<void> {
  res.json(await getUser(ctx, params.id));
}

// PUT /app/api/users/:id {name?, role?, email_verified?}
export async function updateUserHandler({ ctx, req, res, params, body }: Call<Id, Record<string, never>, UpdateUserBody>): Promise<void> {
  res.json(await updateUser(ctx, callerOf(req), params.id, body));
}

// PUT /app/api/users/:id/email {email} — 202: pending until the link sent to the new
// address is followed; the current address is notified. 200 with `pending_email: null`
// for an account still waiting for its invitation: moved at once, invited again there.
export async function changeUserEmailHandler({ ctx, req, res, params, body }: Call<Id, Record<string, never>, { email: string }>): Promise<void> {
  const { user, pendingEmail } = await changeAddressByAdministrator(ctx, callerOf(req), params.id, body.email);
  res.status(pendingEmail === null ? 200 : 202).json({ email: user.email, pending_email: pendingEmail });
}

// PUT /app/api/users/:id/password {password}
export async function setUserPasswordHandler({ ctx, req, res, params, body }: Call<Id, Record<string, never>, { password: string }>): Promise<void> {
  await setPasswordByAdministrator(ctx, callerOf(req), params.id, body.password);
  res.status(204).end();
}

// POST /app/api/users/:id/send-password-reset — not on an account that outranks the
// caller, nor on the caller's own (403 target_outranks_caller, use_profile).
export async function sendPasswordResetHandler({ ctx, req, res, params }: Call<Id>): Promise<void> {
  await sendPasswordReset(ctx, callerOf(req), params.id);
  res.status(204).end();
}

// POST /app/api/users/:id/invitation (or …/resend-invitation) — 204; 409 when the account already has a password.
export async function resendInvitationHandler({ ctx, req, res, params }: Call<Id>): Promise<void> {
  await resendInvitation(ctx, callerOf(req), params.id);
  res.status(204).end();
}

// GET /app/api/users/:id/roles
export async function listUserRolesHandler({ ctx, res, params }: Call<Id>): Promise<void> {
  res.json(wholeList(await listUserRoles(ctx, params.id)));
}

// POST /app/api/users/:id/roles {role_id} — 201 when added, 200 when already held.
export async function addUserRoleHandler({ ctx, req, res, params, body }: Call<Id, Record<string, never>, { role_id: number }>): Promise<void> {
  const { added } = await addUserRole(ctx, callerOf(req), params.id, body.role_id);
  res.status(added ? 201 : 200).json(wholeList(await listUserRoles(ctx, params.id)));
}

// DELETE /app/api/users/:id/roles/:roleId
export async function removeUserRoleHandler({ ctx, req, res, params }: Call<Id & { roleId: number }>): Promise<void> {
  await removeUserRole(ctx, callerOf(req), params.id, params.roleId);
  res.status(204).end();
}
