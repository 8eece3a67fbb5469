// User management, /app/api/users (SPEC A6, A7). Thin: the guard and joi ran before.
import type { Request, Response } from 'express';
import { activeConfig } from '../../lib/config.js';
import { ServiceUnavailableError } from '../../lib/errors.js';
import { logger } from '../../lib/logger.js';
import { sendInvitationEmail, sendPasswordChangedEmail, sendPasswordResetEmail } from '../../mail/index.js';
import {
  addUserRole,
  createUser,
  getUser,
  issuePasswordResetFor,
  listUserRoles,
  listUsers,
  removeUserRole,
  setUserEmail,
  setUserPassword,
  updateUser,
} from '../../models/auth/admin-users.js';
import { callerOf, listBody } from './caller.js';

export const userApiMessages = {
  mailFailed: 'Le courriel n’a pas pu être envoyé. Réessayez plus tard.',
};

// GET /app/api/users?search=&limit=&offset=
export async function listUsersHandler(_req: Request, res: Response): Promise<void> {
  const { search, limit, offset } = res.locals.query;
  const page = await listUsers({ search: search || undefined, limit, offset });
  res.json(listBody(page.items, page.total, limit, offset));
}

// POST /app/api/users — with a password: verified, can log in; without: invitation email.
export async function createUserHandler(req: Request, res: Response): Promise<void> {
  const { user, setupToken } = await createUser(callerOf(req), req.body);
  if (setupToken === undefined) {
    res.status(201).json(user);
    return;
  }
  // The account exists whatever happens to the email: the response says whether it left.
  let invitationSent = true;
  try {
    await sendInvitationEmail(user.email, setupToken, activeConfig().baseUrl);
  } catch {
    invitationSent = false;
  }
  res.status(201).json({ ...user, invitation_sent: invitationSent });
}

// GET /app/api/users/:id
export async function showUserHandler(req: Request, res: Response): Promise<void> {
  res.json(await getUser(Number(req.params.id)));
}

// PUT /app/api/users/:id {name?, role?, email_verified?}
export async function updateUserHandler(req: Request, res: Response): Promise<void> {
  res.json(await updateUser(callerOf(req), Number(req.params.id), req.body));
}

// PUT /app/api/users/:id/email {email}
export async function setUserEmailHandler(req: Request, res: Response): Promise<void> {
  res.json(await setUserEmail(callerOf(req), Number(req.params.id), req.body.email));
}

// PUT /app/api/users/:id/password {password}
export async function setUserPasswordHandler(req: Request, res: Response): Promise<void> {
  const user = await setUserPassword(callerOf(req), Number(req.params.id), req.body.password);
  sendPasswordChangedEmail(user.email).catch((error) => logger.warn({ err: error?.message, userId: user.id }, 'password-changed notice not sent'));
  res.status(204).end();
}

// POST /app/api/users/:id/send-password-reset
export async function sendPasswordResetHandler(req: Request, res: Response): Promise<void> {
  const { user, token } = await issuePasswordResetFor(Number(req.params.id));
  try {
    await sendPasswordResetEmail(user.email, token, activeConfig().baseUrl);
  } catch (error) {
    throw new ServiceUnavailableError(userApiMessages.mailFailed, { code: 'mail_failed', cause: error });
  }
  res.status(204).end();
}

// GET /app/api/users/:id/roles
export async function listUserRolesHandler(req: Request, res: Response): Promise<void> {
  const roles = await listUserRoles(Number(req.params.id));
  res.json(listBody(roles, roles.length, roles.length, 0));
}

// POST /app/api/users/:id/roles {role_id} — 201 when added, 200 when already held.
export async function addUserRoleHandler(req: Request, res: Response): Promise<void> {
  const id = Number(req.params.id);
  const { added } = await addUserRole(callerOf(req), id, req.body.role_id);
  const roles = await listUserRoles(id);
  res.status(added ? 201 : 200).json(listBody(roles, roles.length, roles.length, 0));
}

// DELETE /app/api/users/:id/roles/:roleId
export async function removeUserRoleHandler(req: Request, res: Response): Promise<void> {
  await removeUserRole(callerOf(req), Number(req.params.id), Number(req.params.roleId));
  res.status(204).end();
}
