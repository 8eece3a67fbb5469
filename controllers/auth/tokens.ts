// The three forms reached from an email link; each consumes its token once.
import type { Request, Response } from 'express';
import { completeAccountSetup, resetPassword, verifyEmail } from '../../models/auth/index.js';
import { answerRedirect } from './render.js';

// POST /auth/reset: new password, the account notified by PasswordChangedEmail
export async function handleReset(req: Request, res: Response): Promise<void> {
  await resetPassword({ email: req.body.email, token: req.body.token, newPassword: req.body.newPassword });
  answerRedirect(req, res, '/auth/login?done=reset');
}

// POST /auth/confirm
export async function handleConfirm(req: Request, res: Response): Promise<void> {
  await verifyEmail(req.body.email, req.body.token);
  answerRedirect(req, res, '/auth/login?done=verified');
}

// POST /auth/setup (SPEC A7): credential created, address verified, token deleted
export async function handleSetup(req: Request, res: Response): Promise<void> {
  await completeAccountSetup({ email: req.body.email, token: req.body.token, password: req.body.newPassword });
  answerRedirect(req, res, '/auth/login?done=activated');
}
