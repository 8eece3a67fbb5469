// The three forms reached from an email link; each consumes its token once.
import type { Call } from '../../routes/define.js';
import { completeAccountSetup, resetPassword, verifyEmail } from '../../models/auth/index.js';
import { answerRedirect } from './render.js';
import type { LinkBody, NewPasswordBody } from './schemas.js';

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

// POST /auth/setup (SPEC A7): credential created, address verified, token deleted
export async function handleSetup({ ctx, req, res, body }: FormCall<NewPasswordBody>): Promise<void> {
  await completeAccountSetup(ctx, { email: body.email, token: body.token, password: body.newPassword, ip: req.ip ?? null });
  answerRedirect(req, res, '/auth/login?done=activated');
}
