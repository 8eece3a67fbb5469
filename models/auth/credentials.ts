// The 'credential' account of a user holds its bcrypt hash; nothing else reads it.
import type { AppContext } from '../../lib/context.js';

export const CREDENTIAL_PROVIDER = 'credential';

/**
 * Compares against a throw-away hash of the same cost, so that an unknown address
 * costs the same time as a wrong password (no enumeration by timing). The hash is
 * made once per application.
 */
async function burnPasswordCheck(ctx: AppContext, password: string): Promise<false> {
  const dummy = (ctx.memo.dummyHash ??= ctx.hasher.hash('timing-equaliser-never-a-real-password').catch((error: unknown) => {
    // A failed hash (threads shutting down) must not stay remembered.
    ctx.memo.dummyHash = undefined;
    throw error;
  }));
  await ctx.hasher.verify(password, await dummy);
  return false;
}

/** Compares a password with a stored hash; without one, spends the same time and says no. */
export async function verifyPasswordHash(ctx: AppContext, password: string, passwordHash: string | null | undefined): Promise<boolean> {
  if (!passwordHash) return burnPasswordCheck(ctx, password);
  return ctx.hasher.verify(password, passwordHash);
}

export async function hasCredential(ctx: AppContext, userId: number): Promise<boolean> {
  const row = await ctx.db('app_auth_accounts').where({ user_id: userId, provider: CREDENTIAL_PROVIDER }).first('id');
  return Boolean(row);
}

/** True when the password matches the user's credential; always spends one hash. */
export async function checkPassword(ctx: AppContext, userId: number | undefined, password: string): Promise<boolean> {
  const row =
    userId === undefined ? undefined : await ctx.db('app_auth_accounts').where({ user_id: userId, provider: CREDENTIAL_PROVIDER }).first('password_hash');
  return verifyPasswordHash(ctx, password, row?.password_hash);
}

/** Upserts the credential account; callers hash first, outside their transaction. */
export async function storePasswordHash(ctx: AppContext, userId: number, passwordHash: string): Promise<void> {
  await ctx
    .db('app_auth_accounts')
    .insert({ user_id: userId, provider: CREDENTIAL_PROVIDER, account_id: String(userId), password_hash: passwordHash })
    .onConflict(['user_id', 'provider'])
    .merge({ password_hash: passwordHash, updated_at: ctx.clock.now() });
}
