// The per-account guard of the sign-in (docs/decisions.md, «Budgets par compte»): on top
// of each client address's budget (middleware/rate-limit.ts), the failures against one
// account, from every address together, are counted (models/auth/sign-in-budgets.ts).
// Once a budget is spent the account is slowed down: its attempts are refused with 429
// and Retry-After until the window turns, except from a browser where the account has
// signed in before (controllers/auth/known-device.ts), so guesses cannot keep the owner
// out. The trip is audited and its owner told by email, at most once a day.
import type { AppContext } from '../lib/context.js';
import { InvalidCredentialsError } from '../lib/errors.js';
import type { Origin } from '../lib/origin.js';
import { rateLimitedError } from '../lib/rate-limit-refusal.js';
import { recordAudit, userTarget } from '../models/audit.js';
import { AccountBudgetSpentError, login, SIGN_IN_METHOD_REFUSED, type PasswordSignIn } from '../models/auth/login.js';
import { budgetSubject, noticeDue, spendSignInBudget, type SignInStage } from '../models/auth/sign-in-budgets.js';
import { findUserByEmail } from '../models/auth/users.js';
import { noticeInBackground } from './mail-policy.js';

const TRIP_ACTIONS: Record<SignInStage, string> = { password: 'auth.login_throttled', second_factor: 'auth.second_factor_throttled' };

/** The refusal of a spent account budget (429 «pour ce compte», Retry-After), logged and counted. */
export function accountBudgetRefusal(ctx: AppContext, origin: Origin, stage: SignInStage, until: Date): Error {
  ctx.logger.warn({ operation: `${stage}_account`, requestId: origin.requestId }, 'rate limit reached');
  ctx.metrics.rateLimited(stage === 'password' ? 'login_account' : 'second_factor_account');
  return rateLimitedError(ctx, until, 'account');
}

/**
 * After a failure has spent a budget's last attempt: the `…_throttled` audit event and,
 * the first time of the day, the owner's notice. `tx` may be a transaction: the email
 * leaves after the answer, in the background.
 */
export async function recordTrip(
  tx: AppContext,
  origin: Origin,
  stage: SignInStage,
  account: { id: number; name: string; email: string } | undefined,
  failures: number,
): Promise<(() => void) | undefined> {
  await recordAudit(tx, { actor: null, ip: origin.ip, action: TRIP_ACTIONS[stage], target: account ? userTarget(account) : null, details: { failures } });
  if (!account || !(await noticeDue(tx, stage, account.id))) return undefined;
  return () =>
    noticeInBackground(tx, 'unusual sign-in notice', () => tx.mailer.unusualSignIn(account.email, stage, failures), {
      userId: account.id,
    });
}

/**
 * The password step of a sign-in: models/auth/login.ts, which reads the address's budget
 * of wrong passwords in the statement that reads the account (a spent one refuses before
 * any hashing); a wrong password spends one attempt. `knownDevice`: the account this
 * browser has signed in to before. A refusal by the roles' sign-in policy checked no
 * password and spends nothing.
 */
export async function passwordSignIn(
  ctx: AppContext,
  origin: Origin,
  email: string,
  password: string,
  knownDevice?: number,
  options: { policy?: boolean } = {},
): Promise<PasswordSignIn> {
  try {
    return await login(ctx, email, password, origin.ip, knownDevice, options);
  } catch (error) {
    if (error instanceof AccountBudgetSpentError) throw accountBudgetRefusal(ctx, origin, 'password', error.until);
    if (error instanceof InvalidCredentialsError && error.code !== SIGN_IN_METHOD_REFUSED) {
      const { failures, tripped } = await spendSignInBudget(ctx, 'password', budgetSubject('password', email));
      if (tripped) (await recordTrip(ctx, origin, 'password', await findUserByEmail(ctx, email), failures))?.();
    }
    throw error;
  }
}
