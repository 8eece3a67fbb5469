// Two-step verification (TOTP, RFC 6238): every SQL statement on app_auth_two_factor and
// app_auth_recovery_codes. Secrets leave this model only once, at setup, to be shown to
// their owner; they are stored encrypted (two-factor-crypto.ts) and recovery codes only
// as hashes. Codes: 6 digits, SHA-1, 30 s (what every authenticator app reads), ±1 step
// of drift; a time step is accepted once per account (last_step), so a code seen by
// someone else cannot be used again, nor an older one after it.
import { createHash, randomInt } from 'node:crypto';
import type * as OTPAuthModule from 'otpauth';
import { lazyRequire } from '../../lib/lazy-require.js';

// Loaded by the first two-step operation, not at every start.
const otpauth = lazyRequire<typeof OTPAuthModule>('otpauth');
import type { AppContext } from '../../lib/context.js';
import { ConflictError, UserFacingError } from '../../lib/errors.js';
import { decryptSecret, encryptSecret } from './two-factor-crypto.js';
import { twoFactorMessages } from './messages.js';

const TOTP_PERIOD_SECONDS = 30;
const TOTP_DIGITS = 6;
const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** A setup not confirmed within this time must start again (a new secret, the password again). */
const PENDING_SETUP_LIFETIME_MS = 15 * 60 * 1000;
/** 16 signs of a 32-sign alphabet: 80 random bits, shown as XXXX-XXXX-XXXX-XXXX. */
const RECOVERY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const RECOVERY_LENGTH = 16;

export type SecondFactorKind = 'totp' | 'recovery';

export interface TwoFactorStatus {
  enabled: boolean;
  enabled_at: Date | null;
  /** A setup was started and waits for its first code. */
  pending: boolean;
  recovery_codes_left: number;
}

export interface PendingSetup {
  secret: string;
  otpauth_url: string;
}

function totpOf(ctx: AppContext, secret: string, label: string): OTPAuthModule.TOTP {
  const OTPAuth = otpauth();
  return new OTPAuth.TOTP({
    issuer: ctx.config.appName,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

/** The time step a code matches at the clock's time (±1 step), or undefined. */
function matchingStep(ctx: AppContext, secret: string, code: string): number | undefined {
  const timestamp = ctx.clock.nowMs();
  const delta = otpauth().TOTP.validate({
    token: code,
    secret: otpauth().Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    timestamp,
    window: TOTP_WINDOW,
  });
  if (delta === null) return undefined;
  return otpauth().TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp }) + delta;
}

/** What a person types: spaces and dashes ignored, case ignored. */
function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}

function isTotpShaped(code: string): boolean {
  return /^[0-9]{6}$/.test(code);
}

function recoveryHash(userId: number, code: string): string {
  return createHash('sha256')
    .update(`${userId}:${normalizeCode(code)}`)
    .digest('hex');
}

function newRecoveryCode(): string {
  let code = '';
  for (let index = 0; index < RECOVERY_LENGTH; index++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return code.match(/.{4}/g)!.join('-');
}

export async function twoFactorStatus(ctx: AppContext, userId: number): Promise<TwoFactorStatus> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ enabled_at: Date | null; pending: boolean; left: number }> }>(
    `SELECT t.enabled_at, (t.pending_secret IS NOT NULL) AS pending,
       (SELECT count(*) FROM app_auth_recovery_codes c WHERE c.user_id = t.user_id AND c.used_at IS NULL)::int AS left
     FROM app_auth_two_factor t WHERE t.user_id = ?`,
    [userId],
  );
  const row = rows[0];
  return { enabled: Boolean(row?.enabled_at), enabled_at: row?.enabled_at ?? null, pending: Boolean(row?.pending), recovery_codes_left: row?.left ?? 0 };
}

/**
 * Draws a new secret and keeps it pending (encrypted) until a code confirms it; an
 * earlier pending secret is replaced. Refused while two-step verification is on (it
 * must be turned off first, with a code).
 */
export async function startSetup(tx: AppContext, user: { id: number; email: string }): Promise<PendingSetup> {
  const current = await tx.db('app_auth_two_factor').where({ user_id: user.id }).forUpdate().first('enabled_at');
  if (current?.enabled_at) throw new ConflictError(twoFactorMessages.alreadyEnabled, { code: 'two_factor_enabled' });
  const secret = new (otpauth().Secret)({ size: 20 }).base32;
  const stored = encryptSecret(tx, user.id, secret);
  const now = tx.clock.now();
  await tx
    .db('app_auth_two_factor')
    .insert({ user_id: user.id, pending_secret: stored, pending_at: now, updated_at: now })
    .onConflict('user_id')
    .merge({ pending_secret: stored, pending_at: now, updated_at: now });
  return { secret, otpauth_url: totpOf(tx, secret, user.email).toString() };
}

/** Replaces the account's recovery codes with ten new ones, returned in clear this once. */
async function replaceRecoveryCodes(tx: AppContext, userId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx.db('app_auth_recovery_codes').where({ user_id: userId }).delete();
  await tx.db('app_auth_recovery_codes').insert(codes.map((code) => ({ user_id: userId, code_hash: recoveryHash(userId, code), created_at: tx.clock.now() })));
  return codes;
}

/**
 * Confirms the pending secret with a code of the app: two-step verification is on from
 * now, and ten recovery codes are returned (shown once). The confirming step counts as
 * used, so the same code cannot also open a login.
 */
export async function enableTwoFactor(tx: AppContext, userId: number, code: string): Promise<string[]> {
  const row = await tx.db('app_auth_two_factor').where({ user_id: userId }).forUpdate().first();
  if (row?.enabled_at) throw new ConflictError(twoFactorMessages.alreadyEnabled, { code: 'two_factor_enabled' });
  const live = row?.pending_secret && row.pending_at && row.pending_at.getTime() > tx.clock.nowMs() - PENDING_SETUP_LIFETIME_MS;
  const secret = live ? decryptSecret(tx, userId, row.pending_secret!) : undefined;
  if (!row || !secret) throw new ConflictError(twoFactorMessages.noPendingSetup, { code: 'no_pending_setup' });
  const normalized = normalizeCode(code);
  const step = isTotpShaped(normalized) ? matchingStep(tx, secret, normalized) : undefined;
  if (step === undefined) throw codeError(twoFactorMessages.setupCodeWrong);
  const now = tx.clock.now();
  await tx
    .db('app_auth_two_factor')
    .where({ user_id: userId })
    .update({ secret: row.pending_secret, enabled_at: now, pending_secret: null, pending_at: null, last_step: step, updated_at: now });
  return replaceRecoveryCodes(tx, userId);
}

/** The setup started less than 15 minutes ago and not confirmed yet, to show it again (its page), or undefined. */
export async function pendingSetupOf(ctx: AppContext, user: { id: number; email: string }): Promise<PendingSetup | undefined> {
  const row = await ctx.db('app_auth_two_factor').where({ user_id: user.id }).whereNull('enabled_at').first('pending_secret', 'pending_at');
  if (!row?.pending_secret || !row.pending_at || row.pending_at.getTime() <= ctx.clock.nowMs() - PENDING_SETUP_LIFETIME_MS) return undefined;
  const secret = decryptSecret(ctx, user.id, row.pending_secret);
  return secret === undefined ? undefined : { secret, otpauth_url: totpOf(ctx, secret, user.email).toString() };
}

export function codeError(message: string = twoFactorMessages.codeWrong): UserFacingError {
  return new UserFacingError(message, { code: 'second_factor_wrong', details: [{ field: 'code', message }] });
}

/**
 * Checks a second factor of an account with two-step verification on, on its row locked
 * in this transaction: a TOTP of a step later than the last one accepted (which becomes
 * the last), or an unused recovery code (which is used up). Undefined when neither.
 */
export async function useSecondFactor(tx: AppContext, userId: number, code: string): Promise<SecondFactorKind | undefined> {
  const row = await tx.db('app_auth_two_factor').where({ user_id: userId }).forUpdate().first();
  if (!row?.enabled_at || !row.secret) return undefined;
  const normalized = normalizeCode(code);
  if (isTotpShaped(normalized)) {
    const secret = decryptSecret(tx, userId, row.secret);
    if (secret === undefined) {
      tx.logger.warn({ userId }, 'two-factor secret cannot be decrypted (SESSION_SECRET changed?): only recovery codes work for this account');
      return undefined;
    }
    const step = matchingStep(tx, secret, normalized);
    if (step === undefined || (row.last_step !== null && step <= row.last_step)) return undefined;
    await tx.db('app_auth_two_factor').where({ user_id: userId }).update({ last_step: step, updated_at: tx.clock.now() });
    return 'totp';
  }
  if (normalized.length !== RECOVERY_LENGTH) return undefined;
  const used = await tx
    .db('app_auth_recovery_codes')
    .where({ user_id: userId, code_hash: recoveryHash(userId, normalized) })
    .whereNull('used_at')
    .update({ used_at: tx.clock.now() })
    .returning('id');
  return used.length === 1 ? 'recovery' : undefined;
}

/** A new set of recovery codes (the old ones die); two-step verification must be on. */
export async function renewRecoveryCodes(tx: AppContext, userId: number): Promise<string[]> {
  const row = await tx.db('app_auth_two_factor').where({ user_id: userId }).forUpdate().first('enabled_at');
  if (!row?.enabled_at) throw new ConflictError(twoFactorMessages.notEnabled, { code: 'two_factor_disabled' });
  return replaceRecoveryCodes(tx, userId);
}

/** Turns two-step verification off: the secret, any pending one and the recovery codes go. True when it was on. */
export async function removeTwoFactor(tx: AppContext, userId: number): Promise<boolean> {
  const removed = await tx.db('app_auth_two_factor').where({ user_id: userId }).delete().returning('enabled_at');
  await tx.db('app_auth_recovery_codes').where({ user_id: userId }).delete();
  await tx.db('app_auth_pending_logins').where({ user_id: userId }).delete();
  return removed.some((row) => row.enabled_at !== null);
}
