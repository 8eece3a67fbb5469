// The passkeys of the accounts (app_auth_passkeys) and the challenges waiting for their
// answer (app_auth_passkey_challenges). A challenge is taken by one DELETE … RETURNING:
// two answers racing for it cannot both get it (single use), and an expired one is
// never returned.
import type { AppContext } from '../../lib/context.js';
import type { PasskeyChallengeRow } from '../../lib/tables.js';
import { hashToken } from '../../lib/tokens.js';

export const PASSKEY_CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;

/** What a ceremony was started for; a challenge of one is useless to another. */
export type ChallengePurpose = 'registration' | 'sign_in' | 'second_factor';

/** A passkey as the account's owner sees it. */
export interface PasskeySummary {
  id: number;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

/** A stored credential, as the verification of a signature needs it. */
export interface StoredPasskey {
  id: number;
  userId: number;
  credentialId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
}

export interface NewPasskey {
  userId: number;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
  name: string;
}

/** Keeps a challenge under `binding` (a cookie's token or a session id); an earlier one under it is replaced. */
export async function saveChallenge(
  ctx: AppContext,
  binding: string,
  purpose: ChallengePurpose,
  challenge: string,
  userId: number | null = null,
): Promise<void> {
  const now = ctx.clock.nowMs();
  // Expired challenges of everyone go at the same time (an index on expires_at).
  await ctx.db('app_auth_passkey_challenges').where('expires_at', '<', new Date(now)).delete();
  await ctx
    .db('app_auth_passkey_challenges')
    .insert({ token_hash: hashToken(binding), purpose, user_id: userId, challenge, expires_at: new Date(now + PASSKEY_CHALLENGE_LIFETIME_MS) })
    .onConflict('token_hash')
    .merge();
}

/** Takes the live challenge of `binding` for `purpose` (and `userId` when given): deleted whatever it is, returned only if it fits. */
export async function takeChallenge(ctx: AppContext, binding: string, purpose: ChallengePurpose, userId?: number): Promise<string | undefined> {
  const rows: Array<Pick<PasskeyChallengeRow, 'purpose' | 'user_id' | 'challenge' | 'expires_at'>> = await ctx
    .db('app_auth_passkey_challenges')
    .where({ token_hash: hashToken(binding) })
    .delete(['purpose', 'user_id', 'challenge', 'expires_at']);
  const [row] = rows;
  if (!row || row.purpose !== purpose || row.expires_at.getTime() <= ctx.clock.nowMs()) return undefined;
  if (userId !== undefined && row.user_id !== userId) return undefined;
  return row.challenge;
}

export async function listPasskeys(ctx: AppContext, userId: number): Promise<PasskeySummary[]> {
  return ctx.db('app_auth_passkeys').where({ user_id: userId }).orderBy('id').select('id', 'name', 'created_at', 'last_used_at');
}

/** The credential ids of an account (the browser is told not to register one of them again). */
export async function credentialsOf(ctx: AppContext, userId: number): Promise<Array<{ id: string; transports: string[] }>> {
  const rows = await ctx.db('app_auth_passkeys').where({ user_id: userId }).orderBy('id').select('credential_id', 'transports');
  return rows.map((row) => ({ id: row.credential_id, transports: row.transports }));
}

export async function insertPasskey(ctx: AppContext, passkey: NewPasskey): Promise<PasskeySummary> {
  const [row] = await ctx
    .db('app_auth_passkeys')
    .insert({
      user_id: passkey.userId,
      credential_id: passkey.credentialId,
      public_key: Buffer.from(passkey.publicKey),
      counter: passkey.counter,
      transports: passkey.transports,
      device_type: passkey.deviceType,
      backed_up: passkey.backedUp,
      name: passkey.name,
      created_at: ctx.clock.now(),
    })
    .onConflict('credential_id')
    .ignore()
    .returning(['id', 'name', 'created_at', 'last_used_at']);
  return row;
}

/** The passkey of this credential id, locked for the transaction (its counter is about to move). */
export async function lockPasskeyByCredential(tx: AppContext, credentialId: string): Promise<StoredPasskey | undefined> {
  const row = await tx.db('app_auth_passkeys').where({ credential_id: credentialId }).forUpdate().first();
  if (!row) return undefined;
  return {
    id: row.id,
    userId: row.user_id,
    credentialId: row.credential_id,
    publicKey: Uint8Array.from(row.public_key),
    counter: row.counter,
    transports: row.transports,
  };
}

/** A signature accepted: its counter and backup state kept, the time of use. */
export async function recordPasskeyUse(tx: AppContext, id: number, use: { counter: number; backedUp: boolean; deviceType: string }): Promise<void> {
  await tx
    .db('app_auth_passkeys')
    .where({ id })
    .update({ counter: use.counter, backed_up: use.backedUp, device_type: use.deviceType, last_used_at: tx.clock.now() });
}

/** Removes one passkey of the account; its name, or undefined when the account has none of that id. */
export async function deletePasskey(tx: AppContext, userId: number, id: number): Promise<string | undefined> {
  const rows: Array<{ name: string }> = await tx.db('app_auth_passkeys').where({ id, user_id: userId }).delete(['name']);
  return rows[0]?.name;
}

/** Renames one passkey of the account: its old name and the summary, or undefined when the account has none of that id. */
export async function renamePasskeyRow(
  tx: AppContext,
  userId: number,
  id: number,
  name: string,
): Promise<{ from: string; passkey: PasskeySummary } | undefined> {
  const before = await tx.db('app_auth_passkeys').where({ id, user_id: userId }).forUpdate().first('name');
  if (!before) return undefined;
  const [passkey] = await tx.db('app_auth_passkeys').where({ id, user_id: userId }).update({ name }).returning(['id', 'name', 'created_at', 'last_used_at']);
  return { from: before.name, passkey };
}
