// The two ways a use case sends an email, so that each service states its policy once
// and both of its controllers (HTML and JSON) behave alike:
// - must-deliver: the email is the point of the action (a reset link, an address
//   confirmation); a failed send is a ServiceUnavailableError `mail_failed` (503 in
//   JSON, the message on the form), so the caller knows nothing left;
// - best-effort: a notice, or a message whose failure the answer reports itself; a
//   failed send is one warning line and the action stands.
// The Mailer has already logged the failure itself (mail/index.ts).
import path from 'node:path';
import type { AppContext } from '../lib/context.js';
import { ServiceUnavailableError } from '../lib/errors.js';
import { mailMessages } from '../lib/messages.js';

/** The folder messages are written to instead of sent, or undefined when they leave by SMTP. */
export function outboxFolder(ctx: AppContext): string | undefined {
  return ctx.config.mailOutbox ? path.join(ctx.config.dataDir, 'outbox') : undefined;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Sends, or throws ServiceUnavailableError `mail_failed`. */
export async function mustDeliver(what: string, send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (error) {
    throw new ServiceUnavailableError(mailMessages.mailFailed, { code: 'mail_failed', cause: new Error(`${what}: ${reason(error)}`) });
  }
}

/** Sends and tells whether it left; a failure is one warning line. */
export async function bestEffort(ctx: AppContext, what: string, send: () => Promise<void>, details: Record<string, unknown> = {}): Promise<boolean> {
  try {
    await send();
    return true;
  } catch (error) {
    ctx.logger.warn({ ...details, err: reason(error) }, `${what} not sent`);
    return false;
  }
}

/** A best-effort notice sent after the answer (shutdown and tests wait for it). */
export function noticeInBackground(ctx: AppContext, what: string, send: () => Promise<void>, details: Record<string, unknown> = {}): void {
  ctx.background.run(what, async () => {
    await bestEffort(ctx, what, send, details);
  });
}
