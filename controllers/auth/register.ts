import type { Call } from '../../routes/define.js';
import { sendVerificationEmail } from '../../models/auth/index.js';
import { register } from '../../models/auth/registration.js';
import { authPageMessages } from './messages.js';
import { answerWithMessage } from './render.js';
import type { AccountBody } from './schemas.js';
import { outboxFolder } from '../../services/mail-policy.js';

// POST /auth/register
export async function handleRegister({ ctx, req, res, body }: Call<Record<string, never>, Record<string, never>, AccountBody>): Promise<void> {
  const { user, verificationToken } = await register(ctx, { name: body.name, email: body.email, password: body.password });
  // Best effort: a failed send (logged by the mailer) does not undo the account; the
  // message says how to get a new link.
  const sent = await sendVerificationEmail(ctx, user.email, verificationToken).then(
    () => true,
    () => false,
  );
  await answerWithMessage(
    ctx,
    req,
    res,
    'register',
    sent ? (outboxFolder(ctx) ? authPageMessages.registeredOutbox : authPageMessages.registered) : authPageMessages.registeredMailFailed,
    { done: true },
  );
}
