// The profile page of the logged-in user, at /account (any session) and at
// /admin/profile (inside the admin guard): name, address change (link to the new
// address, notice to the old), password, picture, sessions. Same model functions as
// the REST profile routes (models/auth/profile.ts, models/auth/sessions.ts).
import type { Request, Response } from 'express';
import { activeConfig } from '../../lib/config.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { logger } from '../../lib/logger.js';
import { sendEmailChangeConfirmEmail, sendEmailChangeNotifyEmail, sendPasswordChangedEmail } from '../../mail/index.js';
import { logOutSession } from '../../middleware/session.js';
import { validateValue } from '../../middleware/validate.js';
import { authMessages } from '../../models/auth/messages.js';
import { changePassword, removeProfilePicture, setProfilePicture, startEmailChange, updateProfileName } from '../../models/auth/profile.js';
import { listUserSessions, publicSessionId, revokeAllUserSessions, revokeUserSession } from '../../models/auth/sessions.js';
import { callerOf } from '../api/caller.js';
import { adminMessages } from '../admin/messages.js';
import { profileEmailForm, profileNameForm, profilePasswordForm, sessionIdParams } from '../admin/schemas.js';
import { flash, redirectWithFlash, renderAdmin, type FormLocals } from '../admin/shell.js';

function base(req: Request): string {
  return req.baseUrl || '/account';
}

function logFailed(what: string) {
  return (error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, `${what} not sent`);
}

// GET /account (and /admin/profile); ?email_change=confirmed|invalid after the link.
export async function showProfile(req: Request, res: Response, locals: FormLocals = {}, status = 200): Promise<void> {
  const caller = callerOf(req);
  const landing = req.query.email_change;
  if (landing === 'confirmed') flash(req, adminMessages.profileEmailConfirmed);
  if (landing === 'invalid') flash(req, adminMessages.profileEmailInvalid, 'error');
  const sessions = await listUserSessions(caller.id, req.sessionID);
  await renderAdmin(
    req,
    res,
    'account/profile.njk',
    { pageTitle: 'Mon profil', base: base(req), sessions, others: sessions.filter((session) => !session.current).length, ...locals },
    status,
  );
}

// POST …/name {name}
export async function saveName(req: Request, res: Response): Promise<void> {
  const { name } = validateValue<{ name: string }>(profileNameForm, req.body, { allowUnknown: true });
  await updateProfileName(callerOf(req).id, name);
  redirectWithFlash(req, res, base(req), adminMessages.profileNameSaved);
}

// POST …/email {email, current_password}: link to the new address, notice to the old.
export async function startAddressChange(req: Request, res: Response): Promise<void> {
  const input = validateValue<{ email: string; current_password: string }>(profileEmailForm, req.body, { allowUnknown: true });
  const { user, newEmail, token } = await startEmailChange(callerOf(req).id, { email: input.email, currentPassword: input.current_password });
  try {
    await sendEmailChangeConfirmEmail(newEmail, token, activeConfig().baseUrl);
  } catch (error) {
    logFailed('address-change link')(error);
    return redirectWithFlash(req, res, base(req), adminMessages.mailFailed, 'error');
  }
  sendEmailChangeNotifyEmail(user.email, newEmail).catch(logFailed('address-change notice'));
  redirectWithFlash(req, res, base(req), adminMessages.profileEmailPending(newEmail));
}

// POST …/password {current_password, new_password, confirm_password}
export async function savePassword(req: Request, res: Response): Promise<void> {
  const input = validateValue<{ current_password: string; new_password: string; confirm_password: string }>(profilePasswordForm, req.body, {
    allowUnknown: true,
  });
  if (input.new_password !== input.confirm_password) {
    throw new ValidationError(adminMessages.passwordsDiffer, { details: [{ field: 'confirm_password', message: adminMessages.passwordsDiffer }] });
  }
  const caller = callerOf(req);
  const user = await changePassword(caller.id, { currentPassword: input.current_password, newPassword: input.new_password, keepSid: caller.sid });
  sendPasswordChangedEmail(user.email).catch(logFailed('password-changed notice'));
  redirectWithFlash(req, res, base(req), adminMessages.profilePasswordSaved);
}

// POST …/picture (multipart, field `picture`) — replaces the previous file.
export async function savePicture(req: Request, res: Response): Promise<void> {
  await setProfilePicture(callerOf(req).id, req.image!);
  redirectWithFlash(req, res, base(req), adminMessages.pictureSaved);
}

// POST …/picture/delete
export async function removePicture(req: Request, res: Response): Promise<void> {
  await removeProfilePicture(callerOf(req).id);
  redirectWithFlash(req, res, base(req), adminMessages.pictureRemoved);
}

// POST …/sessions/:sessionId/delete — «Déconnecter»; the current one logs out.
export async function revokeSession(req: Request, res: Response): Promise<void> {
  const { sessionId } = validateValue<{ sessionId: string }>(sessionIdParams, req.params);
  const caller = callerOf(req);
  if (!(await revokeUserSession(caller.id, sessionId))) throw new NotFoundError(authMessages.sessionNotFound);
  if (sessionId === publicSessionId(caller.sid)) {
    await logOutSession(req, res);
    res.redirect(303, '/auth/login?done=logout');
    return;
  }
  redirectWithFlash(req, res, base(req), adminMessages.sessionRevoked);
}

// POST …/sessions/delete-others — «Déconnecter toutes les autres sessions».
export async function revokeOtherSessions(req: Request, res: Response): Promise<void> {
  const caller = callerOf(req);
  const count = await revokeAllUserSessions(caller.id, { exceptSid: caller.sid });
  redirectWithFlash(req, res, base(req), adminMessages.otherSessionsRevoked(count));
}
