// Two-step verification use cases, called by the JSON routes (/app/api/users/profile/2fa,
// DELETE /app/api/users/:id/2fa), the profile pages (/account/2fa) and the login's second
// step (/auth/2fa). Each change and its audit event share one transaction.
// Mail: best-effort notices sent after the answer — «Code de secours utilisé» whenever a
// recovery code is used, and TwoFactorResetEmail when an administrator turns it off.
import { inTransaction, type AppContext } from '../lib/context.js';
import { AccountSuspendedError, ConflictError, InvalidCredentialsError } from '../lib/errors.js';
import type { Origin } from '../lib/origin.js';
import { recordAudit, sourceOf, userTarget } from '../models/audit.js';
import { assertCanManage, assertNotSelf, lockUser } from '../models/auth/admin-rules.js';
import { authMessages, twoFactorServiceMessages, twoFactorMessages } from '../models/auth/messages.js';
import { budgetSpentUntil, budgetSubject, spendSignInBudget } from '../models/auth/sign-in-budgets.js';
import { consumePendingLogin, lockPendingLogin, spendPendingAttempt, type PendingLogin } from '../models/auth/pending-logins.js';
import type { Caller } from '../models/auth/roles.js';
import {
  codeError,
  enableTwoFactor as enableWithCode,
  removeTwoFactor,
  renewRecoveryCodes as renewCodes,
  startSetup,
  twoFactorStatus,
  useSecondFactor,
  type PendingSetup,
  type SecondFactorKind,
} from '../models/auth/two-factor.js';
import { findSessionUser, type SessionUser } from '../models/auth/users.js';
import { verifyCurrentPassword } from './current-password.js';
import { noticeInBackground } from './mail-policy.js';
import { accountBudgetRefusal, recordTrip } from './sign-in-guard.js';

/** The account acting on itself, for the audit log (at the second step the origin has no user yet). */
function actingOf(origin: Origin, user: { id: number; name: string }) {
  return sourceOf({ id: user.id, name: user.name, ip: origin.ip });
}

/** The setup as shown: the secret as text (to type), the otpauth:// URL and its QR code (inline SVG). */
export interface SetupAnswer extends PendingSetup {
  qr_svg: string;
}

/**
 * Starts an enrolment after checking the current password (login-grade budget): a new
 * secret, pending until a code of the app confirms it.
 */
export async function setupTwoFactor(ctx: AppContext, origin: Origin, user: SessionUser, currentPassword: string): Promise<SetupAnswer> {
  await verifyCurrentPassword(ctx, origin, user.id, currentPassword);
  const setup = await inTransaction(ctx, (tx) => startSetup(tx, user));
  return { ...setup, qr_svg: await qrSvg(setup.otpauth_url) };
}

/** The otpauth:// URL as an SVG QR code, markup only (no script, no inline style): the CSP stays as it is. */
export async function qrSvg(url: string): Promise<string> {
  // Only the enrolment draws QR codes: loaded then, not at every start.
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/** Confirms the pending secret with a code: two-step verification is on; ten recovery codes, shown once. */
export async function enableTwoFactor(ctx: AppContext, origin: Origin, user: SessionUser, code: string): Promise<string[]> {
  return inTransaction(ctx, async (tx) => {
    const codes = await enableWithCode(tx, user.id, code);
    await recordAudit(tx, { ...actingOf(origin, user), action: 'two_factor.enabled', target: userTarget(user) });
    return codes;
  });
}

/** A second factor of the account (TOTP or recovery code) inside `tx`, or the field error; a recovery code is audited. */
async function requireSecondFactor(tx: AppContext, origin: Origin, user: SessionUser, code: string): Promise<SecondFactorKind> {
  const kind = await useSecondFactor(tx, user.id, code);
  if (!kind) throw codeError();
  if (kind === 'recovery') await recordAudit(tx, { ...actingOf(origin, user), action: 'two_factor.recovery_used', target: userTarget(user) });
  return kind;
}

async function noticeIfRecovery(ctx: AppContext, user: { id: number; email: string }, kind: SecondFactorKind): Promise<void> {
  if (kind !== 'recovery') return;
  const { recovery_codes_left } = await twoFactorStatus(ctx, user.id);
  noticeInBackground(ctx, 'recovery-code-used notice', () => ctx.mailer.recoveryCodeUsed(user.email, recovery_codes_left), { userId: user.id });
}

/** A new set of recovery codes: current password and a second factor first. */
export async function renewRecoveryCodes(
  ctx: AppContext,
  origin: Origin,
  user: SessionUser,
  input: { currentPassword: string; code: string },
): Promise<string[]> {
  if (!user.second_factor_enabled) throw new ConflictError(twoFactorMessages.notEnabled, { code: 'two_factor_disabled' });
  await verifyCurrentPassword(ctx, origin, user.id, input.currentPassword);
  const { codes, kind } = await inTransaction(ctx, async (tx) => {
    const kind = await requireSecondFactor(tx, origin, user, input.code);
    const codes = await renewCodes(tx, user.id);
    await recordAudit(tx, { ...actingOf(origin, user), action: 'two_factor.recovery_codes_renewed', target: userTarget(user) });
    return { codes, kind };
  });
  if (kind === 'recovery')
    noticeInBackground(ctx, 'recovery-code-used notice', () => ctx.mailer.recoveryCodeUsed(user.email, codes.length), { userId: user.id });
  return codes;
}

/** Turns it off: current password and a second factor first; refused while a role requires it. */
export async function disableTwoFactor(ctx: AppContext, origin: Origin, user: SessionUser, input: { currentPassword: string; code: string }): Promise<void> {
  if (user.second_factor_required) throw new ConflictError(twoFactorServiceMessages.requiredByRole, { code: 'two_factor_required' });
  if (!user.second_factor_enabled) throw new ConflictError(twoFactorMessages.notEnabled, { code: 'two_factor_disabled' });
  await verifyCurrentPassword(ctx, origin, user.id, input.currentPassword);
  const kind = await inTransaction(ctx, async (tx) => {
    const kind = await requireSecondFactor(tx, origin, user, input.code);
    await removeTwoFactor(tx, user.id);
    await recordAudit(tx, { ...actingOf(origin, user), action: 'two_factor.disabled', target: userTarget(user) });
    return kind;
  });
  if (kind === 'recovery') noticeInBackground(ctx, 'recovery-code-used notice', () => ctx.mailer.recoveryCodeUsed(user.email, 0), { userId: user.id });
}

export type SecondStepOutcome = { status: 'done'; user: SessionUser; next: string | null; kind: SecondFactorKind; first: PendingLogin['first'] };

/**
 * The second step of a login: the pending login of this browser's token (live, with
 * attempts left) and a code of its account. The right code consumes the pending login
 * (single use); a wrong one spends an attempt, committed even though the answer is a
 * refusal, and the fifth ends it. Wrong codes also spend the account's budget, shared by
 * every address and pending login (services/sign-in-guard.ts): each is audited
 * (`auth.second_factor_failed`), and the one that spends the budget too
 * (`auth.second_factor_throttled`, the owner told by email). Right codes spend nothing.
 * `knownDevice`: the account this browser has signed in to before, which a spent
 * budget does not slow down.
 */
export async function completeSecondStep(
  ctx: AppContext,
  origin: Origin,
  token: string | undefined,
  code: string,
  knownDevice?: number,
): Promise<SecondStepOutcome> {
  const outcome = await inTransaction(ctx, async (tx) => {
    const pending = token ? await lockPendingLogin(tx, token) : undefined;
    if (!pending || !token) return { status: 'gone' as const };
    const subject = budgetSubject('second_factor', pending.userId);
    const until = await budgetSpentUntil(tx, 'second_factor', subject);
    if (until && knownDevice !== pending.userId) return { status: 'limited' as const, until };
    const user = await findSessionUser(tx, pending.userId);
    const kind = user ? await useSecondFactor(tx, pending.userId, code) : undefined;
    if (!user || !kind) {
      const left = await spendPendingAttempt(tx, token);
      const { failures, tripped } = await spendSignInBudget(tx, 'second_factor', subject);
      if (user)
        await recordAudit(tx, { actor: null, ip: origin.ip, action: 'auth.second_factor_failed', target: userTarget(user), details: { attempts_left: left } });
      const notify = tripped ? await recordTrip(tx, origin, 'second_factor', user, failures) : undefined;
      return { status: 'wrong' as const, left, notify };
    }
    await consumePendingLogin(tx, token);
    // Suspended between the password and the code: no session (said, as after a password).
    if (user.suspended_at !== null) return { status: 'suspended' as const };
    if (kind === 'recovery') await recordAudit(tx, { ...actingOf(origin, user), action: 'two_factor.recovery_used', target: userTarget(user) });
    return { status: 'done' as const, user, next: pending.next, kind, first: pending.first };
  });
  if (outcome.status === 'wrong') outcome.notify?.();
  if (outcome.status === 'gone' || (outcome.status === 'wrong' && outcome.left === 0)) {
    throw new InvalidCredentialsError(twoFactorServiceMessages.pendingLoginGone, { code: 'second_factor_expired' });
  }
  if (outcome.status === 'limited') throw accountBudgetRefusal(ctx, origin, 'second_factor', outcome.until);
  if (outcome.status === 'suspended') throw new AccountSuspendedError(authMessages.accountSuspended);
  if (outcome.status === 'wrong') {
    const message = twoFactorServiceMessages.wrongCodeLeft(outcome.left);
    throw new InvalidCredentialsError(message, { code: 'second_factor_wrong', details: [{ field: 'code', message }] });
  }
  await noticeIfRecovery(ctx, outcome.user, outcome.kind);
  return outcome;
}

/**
 * An administrator turns another account's two-step verification off (lost phone and
 * codes): `users.manage`, the outranking rule, never one's own (the profile asks for a
 * code). The user is told by email.
 */
export async function resetTwoFactorByAdmin(ctx: AppContext, caller: Caller, userId: number): Promise<SessionUser> {
  assertNotSelf(caller, userId);
  const user = await inTransaction(ctx, async (tx) => {
    const user = await lockUser(tx, userId);
    assertCanManage(caller, user);
    if (!(await removeTwoFactor(tx, userId))) throw new ConflictError(twoFactorMessages.notEnabled, { code: 'two_factor_disabled' });
    await recordAudit(tx, { ...sourceOf(caller), action: 'two_factor.reset_by_admin', target: userTarget(user) });
    return user;
  });
  noticeInBackground(ctx, 'two-factor-reset notice', () => ctx.mailer.twoFactorReset(user.email), { userId: user.id });
  return user;
}
