// The three forms reached from an email link; each consumes its token once.
import type { Call } from '../../routes/define.js';
import { logInSession } from '../../middleware/session.js';
import { completeAccountSetup, resetPassword, verifyEmail } from '../../models/auth/index.js';
import { findSessionUser } from '../../models/auth/users.js';
import { rememberDevice } from './known-device.js';
import { authPageMessages } from './messages.js';
import { answerRedirect } from './render.js';
import type { LinkBody, NewPasswordBody } from './schemas.js';
import { askSecondFactor, landingOf } from './two-factor.js';

type FormCall<B> = Call<Record<string, never>, Record<string, never>, B>;

// POST /auth/reset: new password, the account notified by PasswordChangedEmail
export async function handleReset({ ctx, req, res, body }: FormCall<NewPasswordBody>): Promise<void> {
  await resetPassword(ctx, { email: body.email, token: body.token, newPassword: body.newPassword }, { ip: req.ip ?? null });
  answerRedirect(req, res, '/auth/login?done=reset');
}

// POST /auth/confirm
export async function handleConfirm({ ctx, req, res, body }: FormCall<LinkBody>): Promise<void> {
  await verifyEmail(ctx, body.email, body.token);
  answerRedirect(req, res, '/auth/login?done=verified');
}

// POST /auth/setup (SPEC A7): credential created, address verified, token deleted, and
// the person signed in by a login's rules: the account read as a login reads it (a
// suspended one gets no session), a second step when one is set, a new session id
// (fixation), `auth.login` recorded, and the landing of a login (enrolment first when
// a role requires two-step verification).
export async function handleSetup({ ctx, origin, req, res, body }: FormCall<NewPasswordBody>): Promise<void> {
  const activated = await completeAccountSetup(ctx, { email: body.email, token: body.token, password: body.newPassword, ip: origin.ip });
  const user = await findSessionUser(ctx, activated.id);
  if (!user || user.suspended_at !== null) return answerRedirect(req, res, '/auth/login?done=activated');
  if (user.second_factor_enabled) return askSecondFactor(ctx, req, res, user.id, undefined);
  const { permissions, second_factor_enabled, second_factor_required, ...shown } = user;
  await logInSession(req, shown, { method: 'password', via: 'account_setup' }, { flash: authPageMessages.activatedSignedIn });
  rememberDevice(ctx, req, res, shown.id);
  answerRedirect(req, res, landingOf({ permissions, second_factor_enabled, second_factor_required }, undefined), { user: shown });
}
