// The profile page of the logged-in user, at /account (any session) and at
// /admin/profile (inside the admin guard): name, address change (link to the new
// address, notice to the old), password, picture, sessions. Same models and services
// as the REST profile routes (services/profile.ts, models/auth/sessions.ts).
import type { Request } from 'express';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { logOutSession } from '../../middleware/session.js';
import { authMessages } from '../../models/auth/messages.js';
import { updateProfileName } from '../../models/auth/profile.js';
import { frenchDates } from '../../lib/dates.js';
import { publicSessionId } from '../../models/auth/sessions.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { changeOwnAddress, changeOwnPassword, removeProfilePicture, revokeOwnSession, revokeOwnSessions, setProfilePicture } from '../../services/profile.js';
import { listSessionsForDisplay } from '../../services/sessions.js';
import { passkeysOf } from '../../services/passkeys.js';
import { callerOf } from '../api/caller.js';
import { adminMessages, adminTitles } from '../admin/messages.js';
import { authPageMessages } from '../auth/messages.js';
import { flash, redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { outboxFolder } from '../../services/mail-policy.js';
import { listLinkedAccounts } from '../../models/auth/linked-accounts.js';
import { unlinkOwnAccount } from '../../services/sso-accounts.js';
import { reviewEmailsOn, setReviewEmails } from '../../models/auth/email-preferences.js';

type None = Record<string, never>;

/** Where the forms post back and land: the prefix that showed the page. */
function base(req: Request): string {
  return req.baseUrl || '/account';
}

// GET /account (and /admin/profile); ?email_change=confirmed|invalid after the link.
// Also the page re-rendered when one of its forms is refused.
export async function showProfile(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const { ctx, req } = call;
  const landing = req.query.email_change;
  if (landing === 'confirmed') flash(req, adminMessages.profileEmailConfirmed);
  if (landing === 'invalid') flash(req, adminMessages.profileEmailInvalid, 'error');
  const sessions = await listSessionsForDisplay(ctx, callerOf(req).id, req.sessionID, frenchDates(ctx.config.timeZone));
  await renderAdmin(
    call,
    'account/profile.njk',
    {
      pageTitle: adminTitles.profile,
      base: base(req),
      sessions,
      passkeys: await passkeysOf(ctx, callerOf(req).id),
      others: sessions.filter((session) => !session.current).length,
      linkedAccounts: await listLinkedAccounts(ctx, callerOf(req).id),
      reviewEmails: await reviewEmailsOn(ctx, callerOf(req).id),
      // The rules of a new password, shown until the strength meter takes over.
      passwordRules: authPageMessages.passwordRules,
      ...locals,
    },
    status,
  );
}

// POST …/review-emails {review_emails}: the review workflow's emails on or off (an unticked box sends nothing).
export async function saveReviewEmails({ ctx, req, res, body }: Call<None, None, { review_emails: boolean }>): Promise<void> {
  await setReviewEmails(ctx, callerOf(req).id, body.review_emails);
  redirectWithFlash(req, res, base(req), body.review_emails ? adminMessages.reviewEmailsOn : adminMessages.reviewEmailsOff);
}

// POST …/name {name}
export async function saveName({ ctx, req, res, body }: Call<None, None, { name: string }>): Promise<void> {
  await updateProfileName(ctx, callerOf(req).id, body.name);
  redirectWithFlash(req, res, base(req), adminMessages.profileNameSaved);
}

// POST …/email {email, current_password}: link to the new address, notice to the old.
export async function startAddressChange({ ctx, origin, req, res, body }: Call<None, None, { email: string; current_password: string }>): Promise<void> {
  const { pendingEmail } = await changeOwnAddress(ctx, callerOf(req), { email: body.email, currentPassword: body.current_password }, origin);
  redirectWithFlash(req, res, base(req), adminMessages.profileEmailPending(pendingEmail, outboxFolder(ctx)));
}

// POST …/password {current_password, new_password, confirm_password}
export async function savePassword({
  ctx,
  origin,
  req,
  res,
  body,
}: Call<None, None, { current_password: string; new_password: string; confirm_password: string }>): Promise<void> {
  if (body.new_password !== body.confirm_password) {
    throw new ValidationError(adminMessages.passwordsDiffer, { details: [{ field: 'confirm_password', message: adminMessages.passwordsDiffer }] });
  }
  await changeOwnPassword(ctx, callerOf(req), { currentPassword: body.current_password, newPassword: body.new_password }, origin);
  redirectWithFlash(req, res, base(req), adminMessages.profilePasswordSaved);
}

// POST …/picture (multipart, field `picture`) — replaces the previous file.
export async function savePicture({ ctx, req, res }: Call): Promise<void> {
  await setProfilePicture(ctx, callerOf(req), req.image!);
  redirectWithFlash(req, res, base(req), adminMessages.pictureSaved);
}

// POST …/picture/delete
export async function removePicture({ ctx, req, res }: Call): Promise<void> {
  await removeProfilePicture(ctx, callerOf(req));
  redirectWithFlash(req, res, base(req), adminMessages.pictureRemoved);
}

// POST …/sessions/:sessionId/delete — «Déconnecter»; the current one logs out.
export async function revokeSession({ ctx, req, res, params }: Call<{ sessionId: string }>): Promise<void> {
  const caller = callerOf(req);
  if (!(await revokeOwnSession(ctx, caller, params.sessionId))) throw new NotFoundError(authMessages.sessionNotFound);
  if (params.sessionId === publicSessionId(caller.sid)) {
    await logOutSession(req, res);
    return res.redirect(303, '/auth/login?done=logout');
  }
  redirectWithFlash(req, res, base(req), adminMessages.sessionRevoked);
}

// POST …/sso/:provider/delete — «Délier»: refused when it is the account's last way to sign in.
export async function unlinkProvider({ ctx, origin, req, res, params }: Call<{ provider: number }>): Promise<void> {
  const label = await unlinkOwnAccount(ctx, origin, callerOf(req), params.provider);
  redirectWithFlash(req, res, base(req), adminMessages.providerUnlinked(label));
}

// POST …/sessions/delete-others — «Déconnecter toutes les autres sessions».
export async function revokeOtherSessions({ ctx, req, res }: Call): Promise<void> {
  const caller = callerOf(req);
  const count = await revokeOwnSessions(ctx, caller, { keepCurrent: true });
  redirectWithFlash(req, res, base(req), adminMessages.otherSessionsRevoked(count));
}
