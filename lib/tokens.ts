import { createHash, randomBytes } from 'node:crypto';

/** 256 bits from the CSPRNG, URL-safe. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Tokens are stored only as this hash; a leaked table gives no usable link. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
