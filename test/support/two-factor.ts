// Two-step verification in tests: codes computed with otpauth at the app clock's time,
// and an account enrolled through the model (as the enable route does it).
import * as OTPAuth from 'otpauth';
import { inTransaction, type AppContext } from '../../lib/context.js';
import { enableTwoFactor, startSetup } from '../../models/auth/two-factor.js';

/** The 6-digit code of this secret at `timestampMs` (default: the app clock's now). */
export function totpAt(secret: string, timestampMs: number): string {
  return OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30, timestamp: timestampMs });
}

export function totpNow(ctx: AppContext, secret: string, offsetSteps = 0): string {
  return totpAt(secret, ctx.clock.nowMs() + offsetSteps * 30_000);
}

/**
 * Enrols the account: a secret confirmed by the code of the previous step (so the
 * current step is still unused for a login), and its ten recovery codes.
 */
export async function enrolTwoFactor(ctx: AppContext, user: { id: number; email: string }): Promise<{ secret: string; recoveryCodes: string[] }> {
  const { secret } = await inTransaction(ctx, (tx) => startSetup(tx, user));
  const recoveryCodes = await inTransaction(ctx, (tx) => enableTwoFactor(tx, user.id, totpNow(ctx, secret, -1)));
  return { secret, recoveryCodes };
}
