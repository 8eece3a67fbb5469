// The logged-in user's own account, /app/api/users/profile (SPEC A6 "Profile").
import type { Request, Response } from 'express';
import { activeConfig } from '../../lib/config.js';
import { NotFoundError, ServiceUnavailableError } from '../../lib/errors.js';
import { logger } from '../../lib/logger.js';
import { sendEmailChangeConfirmEmail, sendEmailChangeNotifyEmail, sendPasswordChangedEmail } from '../../mail/index.js';
import { authMessages } from '../../models/auth/messages.js';
import { changePassword, confirmEmailChange, removeProfilePicture, setProfilePicture, startEmailChange, updateProfileName } from '../../models/auth/profile.js';
import { listUserSessions, revokeAllUserSessions, revokeUserSession, publicSessionId } from '../../models/auth/sessions.js';
import { logOutSession } from '../../middleware/session.js';
import { callerOf, listBody } from './caller.js';
import { userApiMessages } from './users.js';

/** Where a browser lands after following the confirmation link (the profile page reads the flag). */
export const EMAIL_CHANGE_LANDING = { confirmed: '/account?email_change=confirmed', invalid: '/account?email_change=invalid' };

function logFailedNotice(what: string) {
  return (error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, `${what} not sent`);
}

// PUT /app/api/users/profile {name}
export async function updateProfileHandler(req: Request, res: Response): Promise<void> {
  res.json(await updateProfileName(callerOf(req).id, req.body.name));
}

// POST /app/api/users/profile/email {email, current_password} — 202: pending until the link is followed.
export async function startEmailChangeHandler(req: Request, res: Response): Promise<void> {
  const { user, newEmail, token } = await startEmailChange(callerOf(req).id, { email: req.body.email, currentPassword: req.body.current_password });
  try {
    await sendEmailChangeConfirmEmail(newEmail, token, activeConfig().baseUrl);
  } catch (error) {
    throw new ServiceUnavailableError(userApiMessages.mailFailed, { code: 'mail_failed', cause: error });
  }
  sendEmailChangeNotifyEmail(user.email, newEmail).catch(logFailedNotice('address-change notice'));
  res.status(202).json({ email: user.email, pending_email: newEmail });
}

// GET /app/api/users/email/confirm?token= — the link of EmailChangeConfirmEmail. A
// browser is redirected to the profile page, which says what happened; a JSON client
// gets the user (or the error).
export async function confirmEmailChangeHandler(req: Request, res: Response): Promise<void> {
  const browser = req.accepts(['json', 'html']) === 'html';
  res.set('Cache-Control', 'no-store');
  res.set('Referrer-Policy', 'no-referrer');
  let confirmed;
  try {
    confirmed = await confirmEmailChange(res.locals.query.token);
  } catch (error) {
    if (!browser) throw error;
    res.redirect(303, EMAIL_CHANGE_LANDING.invalid);
    return;
  }
  if (browser) res.redirect(303, EMAIL_CHANGE_LANDING.confirmed);
  else res.json(confirmed.user);
}

// POST /app/api/users/profile/password {current_password, new_password} — other sessions closed.
export async function changePasswordHandler(req: Request, res: Response): Promise<void> {
  const caller = callerOf(req);
  const user = await changePassword(caller.id, {
    currentPassword: req.body.current_password,
    newPassword: req.body.new_password,
    keepSid: caller.sid,
  });
  sendPasswordChangedEmail(user.email).catch(logFailedNotice('password-changed notice'));
  res.status(204).end();
}

// POST /app/api/users/profile/picture (multipart, field `picture`) — replaces the old file.
export async function uploadPictureHandler(req: Request, res: Response): Promise<void> {
  res.json(await setProfilePicture(callerOf(req).id, req.image!));
}

// DELETE /app/api/users/profile/picture
export async function deletePictureHandler(req: Request, res: Response): Promise<void> {
  await removeProfilePicture(callerOf(req).id);
  res.status(204).end();
}

// GET /app/api/users/profile/sessions
export async function listSessionsHandler(req: Request, res: Response): Promise<void> {
  const sessions = await listUserSessions(callerOf(req).id, req.sessionID);
  res.json(listBody(sessions, sessions.length, sessions.length, 0));
}

// DELETE /app/api/users/profile/sessions?keep_current=true|false — all of them, the
// caller's included, unless keep_current=true.
export async function revokeSessionsHandler(req: Request, res: Response): Promise<void> {
  const caller = callerOf(req);
  const keepCurrent: boolean = res.locals.query.keep_current;
  const revoked = await revokeAllUserSessions(caller.id, keepCurrent ? { exceptSid: caller.sid } : {});
  if (!keepCurrent) await logOutSession(req, res);
  res.json({ revoked });
}

// DELETE /app/api/users/profile/sessions/:sessionId — 404 unless it is one of the caller's.
export async function revokeSessionHandler(req: Request, res: Response): Promise<void> {
  const caller = callerOf(req);
  const sessionId = String(req.params.sessionId);
  if (!(await revokeUserSession(caller.id, sessionId))) throw new NotFoundError(authMessages.sessionNotFound);
  if (sessionId === publicSessionId(caller.sid)) await logOutSession(req, res);
  res.status(204).end();
}
