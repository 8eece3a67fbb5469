// The one check of a logged-in user's current password (address change, password
// change, on the API and the profile pages alike). Knowing the current password is
// what stands between a stolen session and the account itself, so guessing it gets
// the login form's protection: the `login` budget per client address, under keys of
// its own (`current_password:<address>`, so profile attempts and login attempts do
// not eat each other's budget), and the same budget per account
// (`current_password_account:<userId>`), so a thief rotating addresses still gets only
// that many guesses. Every check counts, right or wrong, like every login POST.
import type { AppContext } from '../lib/context.js';
import { UserFacingError } from '../lib/errors.js';
import type { Origin } from '../lib/origin.js';
import { clientAddressKey } from '../lib/client-address.js';
import { rateLimitedError } from '../lib/rate-limit-refusal.js';
import { checkPassword } from '../models/auth/credentials.js';
import { authMessages } from '../models/auth/messages.js';
import { incrementCounter } from '../models/rate-limits.js';

const CURRENT_PASSWORD_ADDRESS_PREFIX = 'current_password:';
const CURRENT_PASSWORD_ACCOUNT_PREFIX = 'current_password_account:';

/** The error a wrong current password gives (400, shown next to the `current_password` field). */
function currentPasswordWrongError(): UserFacingError {
  return new UserFacingError(authMessages.currentPasswordWrong, {
    code: 'current_password_wrong',
    details: [{ field: 'current_password', message: authMessages.currentPasswordWrong }],
  });
}

/**
 * Spends one attempt of the address's and of the account's budget, then checks the
 * password. A spent budget is a RateLimitedError (429, Retry-After) and nothing is
 * checked; a wrong password is currentPasswordWrongError(). Without a readable client
 * address only the account's budget applies (the address one is suspended and warned
 * once, as on the forms).
 */
export async function verifyCurrentPassword(ctx: AppContext, origin: Origin, userId: number, password: string): Promise<void> {
  const { max, windowMs } = ctx.config.rateLimits.login;
  const address = clientAddressKey(ctx, origin.ip);
  const byAddress = address === undefined ? undefined : await incrementCounter(ctx, CURRENT_PASSWORD_ADDRESS_PREFIX + address, windowMs);
  const byAccount = await incrementCounter(ctx, CURRENT_PASSWORD_ACCOUNT_PREFIX + String(userId), windowMs);
  const fallback = ctx.clock.nowMs() + windowMs;
  const spent = [
    byAddress && byAddress.totalHits > max ? { subject: 'address' as const, resetMs: byAddress.resetTime?.getTime() ?? fallback } : undefined,
    byAccount.totalHits > max ? { subject: 'account' as const, resetMs: byAccount.resetTime?.getTime() ?? fallback } : undefined,
  ].filter((budget) => budget !== undefined);
  if (spent.length > 0) {
    // Both spent: the message names the address's, the wait is the later reset.
    ctx.logger.warn({ operation: 'current_password', userId, requestId: origin.requestId, spent: spent.map((budget) => budget.subject) }, 'rate limit reached');
    ctx.metrics.rateLimited('current_password');
    throw rateLimitedError(ctx, new Date(Math.max(...spent.map((budget) => budget.resetMs))), spent[0].subject);
  }
  if (!(await checkPassword(ctx, userId, password))) throw currentPasswordWrongError();
}
