// The logged-in user's own account, /app/api/users/profile (SPEC A6 "Profile").
import { NotFoundError } from '../../lib/errors.js';
import { logOutSession } from '../../middleware/session.js';
import { authMessages } from '../../models/auth/messages.js';
import { confirmEmailChange, emailChangeRefusal, isEmailChangeLinkValid, updateProfileName } from '../../models/auth/profile.js';
import { frenchDates } from '../../lib/dates.js';
import { publicSessionId } from '../../models/auth/sessions.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { changeOwnAddress, changeOwnPassword, removeProfilePicture, revokeOwnSession, revokeOwnSessions, setProfilePicture } from '../../services/profile.js';
import { listSessionsForDisplay } from '../../services/sessions.js';
import { adminMessages } from '../admin/messages.js';
import { callerOf, wholeList } from './caller.js';

type None = Record<string, never>;

/** Where a browser lands after following the confirmation link (the profile page reads the flag). */
const EMAIL_CHANGE_LANDING = { confirmed: '/account?email_change=confirmed', invalid: '/account?email_change=invalid' };

// PUT /app/api/users/profile {name}
export async function updateProfileHandler({ ctx, req, res, body }: Call<None, None, { name: string }>): Promise<void> {
  res.json(await updateProfileName(ctx, callerOf(req).id, body.name));
}

// POST /app/api/users/profile/email {email, current_password} — 202: pending until the link is followed.
export async function startEmailChangeHandler({ ctx, origin, req, res, body }: Call<None, None, { email: string; current_password: string }>): Promise<void> {
  const { user, pendingEmail } = await changeOwnAddress(ctx, callerOf(req), { email: body.email, currentPassword: body.current_password }, origin);
  res.status(202).json({ email: user.email, pending_email: pendingEmail });
}

/** The page the confirmation link opens; re-rendered when its form is refused. */
async function renderEmailConfirmPage(call: { res: Call['res'] }, token: string | undefined, error?: string, status = 200): Promise<void> {
  const { res } = call;
  // The URL carries the token: no Referer leaves with it, and no cache keeps it.
  res.set('Cache-Control', 'no-store');
  res.set('Referrer-Policy', 'no-referrer');
  const texts = adminMessages.emailConfirmPage;
  await new Promise<void>((resolve, reject) => {
    res
      .status(status)
      .render(
        'account/email-confirm.njk',
        { pageTitle: texts.title, description: token ? texts.description : '', error, token },
        (failure: Error | null, html?: string) => {
          if (failure) return reject(failure);
          res.send(html);
          resolve();
        },
      );
  });
}

/**
 * The form failure of POST /app/api/users/email/confirm from the page (a rate limit,
 * a mangled field): the page again with the message, and the button while the token
 * still has the shape of one (it is the visitor's own link, already in their address bar).
 */
export async function rerenderEmailConfirmPage(call: AnyCall, locals: FormLocals, status: number): Promise<void> {
  const submitted = (call.body as { token?: unknown }).token;
  const token = typeof submitted === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(submitted) ? submitted : undefined;
  await renderEmailConfirmPage(call, token, locals.error ?? adminMessages.profileEmailInvalid, status);
}

// GET /app/api/users/email/confirm?token= — the link of EmailChangeConfirmEmail. It
// changes nothing (mail scanners open links): a browser gets a page whose button posts
// the token (a dead link is said at once); a JSON client gets {valid}.
export async function showEmailConfirmHandler({ ctx, req, res, query }: Call<None, { token: string }>): Promise<void> {
  const valid = await isEmailChangeLinkValid(ctx, query.token);
  if (req.accepts(['json', 'html']) !== 'html') {
    res.set('Cache-Control', 'no-store');
    res.json({ valid });
    return;
  }
  if (valid) await renderEmailConfirmPage({ res }, query.token);
  else await renderEmailConfirmPage({ res }, undefined, adminMessages.profileEmailInvalid);
}

// POST /app/api/users/email/confirm {token} — the button of that page (a form post,
// urlencoded: redirected to the profile page, which says what happened) or a JSON
// client (the user, or the error). No session needed: the token is the proof.
export async function confirmEmailChangeHandler({ ctx, req, res, body }: Call<None, None, { token: string }>): Promise<void> {
  res.set('Cache-Control', 'no-store');
  const outcome = await confirmEmailChange(ctx, body.token, req.ip ?? null);
  if (req.is('application/x-www-form-urlencoded')) {
    return res.redirect(303, outcome.status === 'confirmed' ? EMAIL_CHANGE_LANDING.confirmed : EMAIL_CHANGE_LANDING.invalid);
  }
  if (outcome.status !== 'confirmed') throw emailChangeRefusal(outcome);
  res.json(outcome.user);
}

// POST /app/api/users/profile/password {current_password, new_password} — other sessions closed.
export async function changePasswordHandler({
  ctx,
  origin,
  req,
  res,
  body,
}: Call<None, None, { current_password: string; new_password: string }>): Promise<void> {
  await changeOwnPassword(ctx, callerOf(req), { currentPassword: body.current_password, newPassword: body.new_password }, origin);
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

// GET /app/api/users/profile/sessions — each with `device` («Firefox sur Windows») and
// `last_seen_label` (French, APP_TIME_ZONE) beside the raw user agent and timestamps.
export async function listSessionsHandler({ ctx, req, res }: Call): Promise<void> {
  res.json(wholeList(await listSessionsForDisplay(ctx, callerOf(req).id, req.sessionID, frenchDates(ctx.config.timeZone))));
}

// DELETE /app/api/users/profile/sessions?keep_current=true|false — all of them, the
// caller's included, unless keep_current=true.
export async function revokeSessionsHandler({ ctx, req, res, query }: Call<None, { keep_current: boolean }>): Promise<void> {
  const caller = callerOf(req);
  const revoked = await revokeOwnSessions(ctx, caller, { keepCurrent: query.keep_current });
  if (!query.keep_current) await logOutSession(req, res);
  res.json({ revoked });
}

// DELETE /app/api/users/profile/sessions/:sessionId — 404 unless it is one of the caller's.
export async function revokeSessionHandler({ ctx, req, res, params }: Call<{ sessionId: string }>): Promise<void> {
  const caller = callerOf(req);
  if (!(await revokeOwnSession(ctx, caller, params.sessionId))) throw new NotFoundError(authMessages.sessionNotFound);
  if (params.sessionId === publicSessionId(caller.sid)) await logOutSession(req, res);
  res.status(204).end();
}
