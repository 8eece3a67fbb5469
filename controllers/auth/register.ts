import type { Call } from '../../routes/define.js';
import { sendVerificationEmail } from '../../models/auth/index.js';
import { register } from '../../models/auth/registration.js';
import { authPageMessages } from './messages.js';
import { answerWithMessage } from './render.js';
import type { AccountBody } from './schemas.js';
import { outboxFolder } from '../../services/mail-policy.js';

// POST /auth/register. An address that already has an account gets exactly the answer
// of a new one (status, page, message, and the same work before it: a hash, a
// transaction, an email sent before answering); its owner is emailed «Un compte existe
// déjà avec cette adresse» with a reset link instead of a verification link.
export async function handleRegister({ ctx, origin, req, res, body }: Call<Record<string, never>, Record<string, never>, AccountBody>): Promise<void> {
  const registration = await register(ctx, { name: body.name, email: body.email, password: body.password, ip: origin.ip });
  const send =
    registration.kind === 'created'
      ? () => sendVerificationEmail(ctx, registration.user.email, registration.verificationToken)
      : () => ctx.mailer.accountExists(registration.user.email, registration.resetToken);
  // Best effort: a failed send (logged by the mailer) does not undo the account; the
  // message says how to get a new link.
  const sent = await send().then(
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
