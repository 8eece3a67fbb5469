import type { Request, Response } from 'express';
import { activeConfig } from '../../lib/config.js';
import { wantsJson } from '../../middleware/error-handler.js';
import { sendVerificationEmail } from '../../mail/index.js';
import { register } from '../../models/auth/registration.js';
import { authPageMessages } from './messages.js';
import { renderAuthPage } from './render.js';

// POST /auth/register
export async function handleRegister(req: Request, res: Response): Promise<void> {
  const { user, verificationToken } = await register({ name: req.body.name, email: req.body.email, password: req.body.password });
  // A failed send does not undo the account (already logged by the mail module): the
  // message says how to get a new link.
  const sent = await sendVerificationEmail(user.email, verificationToken, activeConfig().baseUrl).then(
    () => true,
    () => false,
  );
  const message = sent ? authPageMessages.registered : authPageMessages.registeredMailFailed;
  if (wantsJson(req)) {
    res.json({ success: true, message });
    return;
  }
  await renderAuthPage(req, res, 'register', { message, done: true });
}
