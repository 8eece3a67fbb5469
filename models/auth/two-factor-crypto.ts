// TOTP secrets at rest: AES-256-GCM under a key derived from SESSION_SECRET with HKDF
// (SHA-256, a fixed info string naming this use, so the key is never the cookie
// signing secret itself). Stored as `v1.` + base64url(iv ‖ tag ‖ ciphertext); the
// account id is the additional authenticated data, so a ciphertext copied onto another
// account's row does not decrypt. A changed SESSION_SECRET makes every stored secret
// undecryptable (the tag check fails): see docs/decisions.md for what then happens.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { AppContext } from '../../lib/context.js';

const VERSION = 'v1.';
const INFO = 'app-site-core two-factor secret v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The derived key, computed once per application (HKDF is cheap, but not free). */
function keyOf(ctx: AppContext): Buffer {
  ctx.memo.twoFactorKey ??= Buffer.from(hkdfSync('sha256', ctx.config.sessionSecret, Buffer.alloc(0), INFO, 32));
  return ctx.memo.twoFactorKey;
}

export function encryptSecret(ctx: AppContext, userId: number, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(ctx), iv);
  cipher.setAAD(Buffer.from(`user:${userId}`));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

/** The secret, or undefined when it cannot be decrypted (another key, another account, damage). */
export function decryptSecret(ctx: AppContext, userId: number, stored: string): string | undefined {
  if (!stored.startsWith(VERSION)) return undefined;
  const raw = Buffer.from(stored.slice(VERSION.length), 'base64url');
  if (raw.length <= IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(ctx), raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(`user:${userId}`));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
