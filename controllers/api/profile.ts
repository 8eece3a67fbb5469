// The logged-in user's own account, /app/api/users/profile (SPEC A6 "Profile").
import { NotFoundError } from '../../lib/errors.js';
import { logOutSession } from '../../middleware/session.js';
import { authMessages } from '../../models/auth/messages.js';
import { confirmEmailChange, emailChangeRefusal, updateProfileName } from '../../models/auth/profile.js';
import { listUserSessions, publicSessionId, revokeAllUserSessions, revokeUserSession } from '../../models/auth/sessions.js';
import type { Call } from '../../routes/define.js';
import { changeOwnAddress, changeOwnPassword, removeProfilePicture, setProfilePicture } from '../../services/profile.js';
import { callerOf, wholeList } from './caller.js';

type None = Record<string, never>;

/** Where a browser lands after following the confirmation link (the profile page reads the flag). */
export const EMAIL_CHANGE_LANDING = { confirmed: '/account?email_change=confirmed', invalid: '/account?email_change=invalid' };

// PUT /app/api/users/profile {name}
export async function updateProfileHandler({ ctx, req, res, body }: Call<None, None, { name: string }>): Promise<void> {
  res.json(await updateProfileName(ctx, callerOf(req).id, body.name));
}

// POST /app/api/users/profile/email {email, current_password} — 202: pending until the link is followed.
export async function startEmailChangeHandler({ ctx, req, res, body }: Call<None, None, { email: string; current_password: string }>): Promise<void> {
  const { user, pendingEmail } = await changeOwnAddress(ctx, callerOf(req), { email: body.email, currentPassword: body.current_password }, req);
  res.status(202).json({ email: user.email, pending_email: pendingEmail });
}

// GET /app/api/users/email/confirm?token= — the link of EmailChangeConfirmEmail. A
// browser is redirected to the profile page, which says what happened; a JSON client
// gets the user, or the error.
export async function confirmEmailChangeHandler({ ctx, req, res, query }: Call<None, { token: string }>): Promise<void> {
  const browser = req.accepts(['json', 'html']) === 'html';
  res.set('Cache-Control', 'no-store');
  res.set('Referrer-Policy', 'no-referrer');
  const outcome = await confirmEmailChange(ctx, query.token);
  if (browser) return res.redirect(303, outcome.status === 'confirmed' ? EMAIL_CHANGE_LANDING.confirmed : EMAIL_CHANGE_LANDING.invalid);
  if (outcome.status !== 'confirmed') throw emailChangeRefusal(outcome);
  res.json(outcome.user);
}

// POST /app/api/users/profile/password {current_password, new_password} — other sessions closed.
export async function changePasswordHandler({ ctx, req, res, body }: Call<None, None, { current_password: string; new_password: string }>): Promise<void> {
  await changeOwnPassword(ctx, callerOf(req), { currentPassword: body.current_password, newPassword: body.new_password }, req);
  res.status(204).end();
}

// POST /app/api/users/profile/picture (multipart, field `picture`) — replaces the old file.
export async function uploadPictureHandler({ ctx, req, res }: Call): Promise<void> {
  res.json(await setProfilePicture(ctx, callerOf(req), req.image!));
}

// DELETE /app/api/users/profile/picture
export async function deletePictureHandler({ ctx, req, res }: Call): Promise<void> {
  await removeProfilePicture(ctx, callerOf(req));
  res.status(204).end();
}

// GET /app/api/users/profile/sessions
export async function listSessionsHandler({ ctx, req, res }: Call): Promise<void> {
  res.json(wholeList(await listUserSessions(ctx, callerOf(req).id, req.sessionID)));
}

// DELETE /app/api/users/profile/sessions?keep_current=true|false — all of them, the
// caller's included, unless keep_current=true.
export async function revokeSessionsHandler({ ctx, req, res, query }: Call<None, { keep_current: boolean }>): Promise<void> {
  const caller = callerOf(req);
  const revoked = await revokeAllUserSessions(ctx, caller.id, query.keep_current ? { exceptSid: caller.sid } : {});
  if (!query.keep_current) await logOutSession(req, res);
  res.json({ revoked });
}

// DELETE /app/api/users/profile/sessions/:sessionId — 404 unless it is one of the caller's.
export async function revokeSessionHandler({ ctx, req, res, params }: Call<{ sessionId: string }>): Promise<void> {
  const caller = callerOf(req);
  if (!(await revokeUserSession(ctx, caller.id, params.sessionId))) throw new NotFoundError(authMessages.sessionNotFound);
  if (params.sessionId === publicSessionId(caller.sid)) await logOutSession(req, res);
  res.status(204).end();
}
