// Forgot password and resend verification: the answer is the same whether an account
// matches or not, and whether the email can be sent or not. It is computed before the
// account is even looked up; the lookup and the email happen after, in the background,
// so the response time says nothing either.
import type { Request, Response } from 'express';
import { activeConfig } from '../../lib/config.js';
import { wantsJson } from '../../middleware/error-handler.js';
import { sendPasswordResetEmail, sendVerificationEmail } from '../../mail/index.js';
import { requestPasswordReset, resendEmailVerification } from '../../models/auth/recovery.js';
import { runInBackground } from './background.js';
import { authPageMessages, type AuthPage } from './messages.js';
import { renderAuthPage } from './render.js';

async function answerSame(req: Request, res: Response, page: AuthPage, message: string, email: string): Promise<void> {
  if (wantsJson(req)) {
    res.json({ success: true, message });
    return;
  }
  await renderAuthPage(req, res, page, { message, values: { email } });
}

// POST /auth/forgot
export async function handleForgot(req: Request, res: Response): Promise<void> {
  const email: string = req.body.email;
  await answerSame(req, res, 'forgot', authPageMessages.forgotAnswer, email);
  runInBackground('password reset email', async () => {
    const issued = await requestPasswordReset(email);
    if (issued) await sendPasswordResetEmail(issued.user.email, issued.token, activeConfig().baseUrl);
  });
}

// POST /auth/resend-verification
export async function handleResend(req: Request, res: Response): Promise<void> {
  const email: string = req.body.email;
  await answerSame(req, res, 'login', authPageMessages.resendAnswer, email);
  runInBackground('verification email', async () => {
    const issued = await resendEmailVerification(email);
    if (issued) await sendVerificationEmail(issued.user.email, issued.token, activeConfig().baseUrl);
  });
}
