// The forms of /admin/users/:id (users.manage): name and primary role, verified
// state, address, password, reset link, extra roles. Each calls the model function the
// REST API calls; a refusal re-renders the detail page (routes wire formFailure).
import type { Request, Response } from 'express';
import { activeConfig } from '../../lib/config.js';
import { logger } from '../../lib/logger.js';
import { sendPasswordChangedEmail, sendPasswordResetEmail } from '../../mail/index.js';
import { validateValue } from '../../middleware/validate.js';
import { addUserRole, issuePasswordResetFor, removeUserRole, setUserEmail, setUserPassword, updateUser } from '../../models/auth/admin-users.js';
import { callerOf } from '../api/caller.js';
import { adminMessages } from './messages.js';
import { assignRoleForm, editUserForm, userEmailForm, userPasswordForm, userRoleParams } from './schemas.js';
import { redirectWithFlash } from './shell.js';

function detailPath(req: Request): string {
  return `/admin/users/${Number(req.params.id)}`;
}

// POST /admin/users/:id {name, role}
export async function saveUser(req: Request, res: Response): Promise<void> {
  const input = validateValue<{ name: string; role: string }>(editUserForm, req.body, { allowUnknown: true });
  await updateUser(callerOf(req), Number(req.params.id), input);
  redirectWithFlash(req, res, detailPath(req), adminMessages.userSaved);
}

// POST /admin/users/:id/verify — the button «Marquer le courriel comme vérifié».
export async function markUserVerified(req: Request, res: Response): Promise<void> {
  await updateUser(callerOf(req), Number(req.params.id), { email_verified: true });
  redirectWithFlash(req, res, detailPath(req), adminMessages.userVerified);
}

// POST /admin/users/:id/email {email}
export async function saveUserEmail(req: Request, res: Response): Promise<void> {
  const { email } = validateValue<{ email: string }>(userEmailForm, req.body, { allowUnknown: true });
  await setUserEmail(callerOf(req), Number(req.params.id), email);
  redirectWithFlash(req, res, detailPath(req), adminMessages.userEmailSaved);
}

// POST /admin/users/:id/password {password}
export async function saveUserPassword(req: Request, res: Response): Promise<void> {
  const { password } = validateValue<{ password: string }>(userPasswordForm, req.body, { allowUnknown: true });
  const user = await setUserPassword(callerOf(req), Number(req.params.id), password);
  sendPasswordChangedEmail(user.email).catch((error) => logger.warn({ err: error?.message, userId: user.id }, 'password-changed notice not sent'));
  redirectWithFlash(req, res, detailPath(req), adminMessages.userPasswordSaved);
}

// POST /admin/users/:id/send-password-reset
export async function sendUserReset(req: Request, res: Response): Promise<void> {
  const { user, token } = await issuePasswordResetFor(Number(req.params.id));
  try {
    await sendPasswordResetEmail(user.email, token, activeConfig().baseUrl);
  } catch (error) {
    logger.warn({ err: error instanceof Error ? error.message : String(error), userId: user.id }, 'reset link not sent');
    return redirectWithFlash(req, res, detailPath(req), adminMessages.mailFailed, 'error');
  }
  redirectWithFlash(req, res, detailPath(req), adminMessages.resetSent(user.email));
}

// POST /admin/users/:id/roles {role_id}
export async function assignUserRole(req: Request, res: Response): Promise<void> {
  const { role_id: roleId } = validateValue<{ role_id: number }>(assignRoleForm, req.body, { allowUnknown: true });
  const { added } = await addUserRole(callerOf(req), Number(req.params.id), roleId);
  redirectWithFlash(req, res, detailPath(req), added ? adminMessages.roleAssigned : adminMessages.roleAlreadyHeld);
}

// POST /admin/users/:id/roles/:roleId/delete (confirmed in a <details>)
export async function revokeUserRole(req: Request, res: Response): Promise<void> {
  const { id, roleId } = validateValue<{ id: number; roleId: number }>(userRoleParams, req.params);
  await removeUserRole(callerOf(req), id, roleId);
  redirectWithFlash(req, res, detailPath(req), adminMessages.roleRevoked);
}
