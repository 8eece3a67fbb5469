// Forgot password and resend verification: the answer is the same whether an account
// matches or not, and whether the email can be sent or not. It is given before the
// account is even looked up; the lookup and the email happen after, in the background
// (ctx.background, awaited at shutdown), so the response time says nothing either.
// A failed send is only logged.
import type { Call } from '../../routes/define.js';
import { sendPasswordResetEmail, sendVerificationEmail } from '../../models/auth/index.js';
import { requestPasswordReset, resendEmailVerification } from '../../models/auth/recovery.js';
import { authPageMessages } from './messages.js';
import { answerWithMessage } from './render.js';
import type { EmailBody } from './schemas.js';
import { outboxFolder } from '../../services/mail-policy.js';

type EmailCall = Call<Record<string, never>, Record<string, never>, EmailBody>;

// POST /auth/forgot
export async function handleForgot({ ctx, req, res, body }: EmailCall): Promise<void> {
  await answerWithMessage(ctx, req, res, 'forgot', outboxFolder(ctx) ? authPageMessages.forgotAnswerOutbox : authPageMessages.forgotAnswer, {
    values: { email: body.email },
  });
  ctx.background.run('password reset email', async () => {
    const issued = await requestPasswordReset(ctx, body.email);
    if (issued) await sendPasswordResetEmail(ctx, issued.user.email, issued.token);
  });
}

// POST /auth/resend-verification (its button sits on the login page)
export async function handleResend({ ctx, req, res, body }: EmailCall): Promise<void> {
  await answerWithMessage(ctx, req, res, 'login', outboxFolder(ctx) ? authPageMessages.resendAnswerOutbox : authPageMessages.resendAnswer, {
    values: { email: body.email },
  });
  ctx.background.run('verification email', async () => {
    const issued = await resendEmailVerification(ctx, body.email);
    if (issued) await sendVerificationEmail(ctx, issued.user.email, issued.token);
  });
}
