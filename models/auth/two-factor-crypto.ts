// TOTP secrets at rest: AES-256-GCM under a key derived from SESSION_SECRET with HKDF
// (SHA-256, a fixed info string naming this use, so the key is never the cookie
// signing secret itself). Stored as `v1.` + base64url(iv ‖ tag ‖ ciphertext); the
// account id is the additional authenticated data, so a ciphertext copied onto another
// account's row does not decrypt. A changed SESSION_SECRET makes every stored secret
// undecryptable (the tag check fails) until reencryptSecrets() moves them to the new
// key (`npm run two-factor:rekey`); docs/decisions.md tells the whole story.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { AppContext } from '../../lib/context.js';

const VERSION = 'v1.';
const INFO = 'app-site-core two-factor secret v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The AES-256 key of the stored secrets for this SESSION_SECRET. */
function deriveSecretKey(sessionSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), INFO, 32));
}

/** The application's key, derived once (HKDF is cheap, but not free). */
function keyOf(ctx: AppContext): Buffer {
  ctx.memo.twoFactorKey ??= deriveSecretKey(ctx.config.sessionSecret);
  return ctx.memo.twoFactorKey;
}

// The additional data names what the secret belongs to: `user:<id>` for a TOTP secret,
// `sso-provider:<id>` for a provider's client secret (models/auth/sso-providers.ts).
function encryptWithKey(key: Buffer, owner: number | string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(typeof owner === 'number' ? `user:${owner}` : owner));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

function decryptWithKey(key: Buffer, owner: number | string, stored: string): string | undefined {
  if (!stored.startsWith(VERSION)) return undefined;
  const raw = Buffer.from(stored.slice(VERSION.length), 'base64url');
  if (raw.length <= IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(typeof owner === 'number' ? `user:${owner}` : owner));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export function encryptSecret(ctx: AppContext, userId: number, secret: string): string {
  return encryptWithKey(keyOf(ctx), userId, secret);
}

/** The secret, or undefined when it cannot be decrypted (another key, another account, damage). */
export function decryptSecret(ctx: AppContext, userId: number, stored: string): string | undefined {
  return decryptWithKey(keyOf(ctx), userId, stored);
}

/** Any other short secret of the site under the same key, bound to what it belongs to (`owner`, e.g. `sso-flow`). */
export function sealWithSiteKey(ctx: AppContext, owner: string, text: string): string {
  return encryptWithKey(keyOf(ctx), owner, text);
}

export function openWithSiteKey(ctx: AppContext, owner: string, stored: string): string | undefined {
  return decryptWithKey(keyOf(ctx), owner, stored);
}

/** A single sign-on provider's client secret, bound to its row (the same key as the TOTP secrets). */
export function encryptProviderSecret(ctx: AppContext, providerId: number, secret: string): string {
  return encryptWithKey(keyOf(ctx), `sso-provider:${providerId}`, secret);
}

export function decryptProviderSecret(ctx: AppContext, providerId: number, stored: string): string | undefined {
  return decryptWithKey(keyOf(ctx), `sso-provider:${providerId}`, stored);
}

export interface RekeyReport {
  /** Secrets (active or pending) moved from the previous key to the current one. */
  reencrypted: number;
  /** Already under the current key. */
  current: number;
  /** Under neither key: their accounts need recovery codes or an administrator's reset. */
  unreadable: number;
}

/**
 * After SESSION_SECRET changed: every stored secret still under the previous secret's
 * key is encrypted again under the current one, in one transaction (rows locked), so
 * enrolled accounts keep working. Run by scripts/two-factor-rekey.ts, which has no
 * application, hence the knex handle rather than a context.
 */
export async function reencryptSecrets(db: Knex, previousSessionSecret: string, currentSessionSecret: string): Promise<RekeyReport> {
  const previous = deriveSecretKey(previousSessionSecret);
  const current = deriveSecretKey(currentSessionSecret);
  const report: RekeyReport = { reencrypted: 0, current: 0, unreadable: 0 };
  await db.transaction(async (trx) => {
    const rows = await trx('app_auth_two_factor').forUpdate().select('user_id', 'secret', 'pending_secret');
    for (const row of rows) {
      const update: { secret?: string; pending_secret?: string } = {};
      for (const column of ['secret', 'pending_secret'] as const) {
        const stored = row[column];
        if (stored === null) continue;
        if (decryptWithKey(current, row.user_id, stored) !== undefined) {
          report.current++;
          continue;
        }
        const secret = decryptWithKey(previous, row.user_id, stored);
        if (secret === undefined) {
          report.unreadable++;
          continue;
        }
        update[column] = encryptWithKey(current, row.user_id, secret);
        report.reencrypted++;
      }
      if (Object.keys(update).length > 0) await trx('app_auth_two_factor').where({ user_id: row.user_id }).update(update);
    }
    // The single sign-on providers' client secrets live under the same key.
    const providers = await trx('app_auth_sso_providers').whereNotNull('client_secret').forUpdate().select('id', 'client_secret');
    for (const provider of providers) {
      const owner = `sso-provider:${provider.id}`;
      const stored = provider.client_secret ?? '';
      if (decryptWithKey(current, owner, stored) !== undefined) {
        report.current++;
        continue;
      }
      const secret = decryptWithKey(previous, owner, stored);
      if (secret === undefined) {
        report.unreadable++;
        continue;
      }
      await trx('app_auth_sso_providers')
        .where({ id: provider.id })
        .update({ client_secret: encryptWithKey(current, owner, secret) });
      report.reencrypted++;
    }
  });
  return report;
}
