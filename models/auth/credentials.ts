// The 'credential' account of a user holds its bcrypt hash; nothing else reads it.
import { db, type Executor } from '../../lib/db.js';
import { hashPassword, verifyPassword } from '../../lib/password-hasher.js';

export const CREDENTIAL_PROVIDER = 'credential';

let dummyHash: Promise<string> | undefined;

/**
 * Compares against a throw-away hash of the same cost, so that an unknown address
 * costs the same time as a wrong password (no enumeration by timing).
 */
export async function burnPasswordCheck(password: string): Promise<false> {
  dummyHash ??= hashPassword('timing-equaliser-never-a-real-password');
  await verifyPassword(password, await dummyHash);
  return false;
}

export async function hasCredential(userId: number, trx: Executor = db()): Promise<boolean> {
  const row = await trx('app_auth_accounts').where({ user_id: userId, provider: CREDENTIAL_PROVIDER }).first('id');
  return Boolean(row);
}

/** True when the password matches the user's credential; always spends one hash. */
export async function checkPassword(userId: number | undefined, password: string, trx: Executor = db()): Promise<boolean> {
  const row =
    userId === undefined
      ? undefined
      : await trx('app_auth_accounts').where({ user_id: userId, provider: CREDENTIAL_PROVIDER }).first('password_hash');
  if (!row?.password_hash) return burnPasswordCheck(password);
  return verifyPassword(password, row.password_hash);
}

/** Upserts the credential account; callers hash first, outside their transaction. */
export async function storePasswordHash(userId: number, passwordHash: string, trx: Executor = db()): Promise<void> {
  await trx('app_auth_accounts')
    .insert({ user_id: userId, provider: CREDENTIAL_PROVIDER, account_id: String(userId), password_hash: passwordHash })
    .onConflict(['user_id', 'provider'])
    .merge({ password_hash: passwordHash, updated_at: trx.fn.now() });
}
