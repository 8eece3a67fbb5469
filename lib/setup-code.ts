// The one-time setup code of a fresh install reachable from the network. While no
// account exists, whoever submits the first-run form first becomes administrator; when
// others can reach the server that could be anyone who finds it before its owner. The
// form then also asks for a code printed in the server's log at start, which only
// whoever runs the server can read. It is made when the application context is created
// (so it changes at each start), kept in ctx.memo, and shown nowhere else.
//
// Reachable by others: listening beyond loopback (HOST=0.0.0.0, a LAN or public
// address), and also behind a reverse proxy (APP_TRUST_PROXY) or in production, where
// the README's nginx on the same host forwards the whole Internet to 127.0.0.1. Only a
// loopback development install, reached from its own machine, goes without.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from './config.js';

// 32 signs without 0/O and 1/I: one random byte gives one sign without bias (256 = 8 × 32).
const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const LENGTH = 12; // 60 bits, against a `register` budget of a few attempts per hour

/** A new code, e.g. `K7QF-2MZC-9XHA`. */
export function newSetupCode(): string {
  const signs = [...randomBytes(LENGTH)].map((byte) => ALPHABET[byte & 31]).join('');
  return signs.match(/.{4}/g)!.join('-');
}

type SetupCodeConfig = Pick<Config, 'host' | 'isProduction' | 'trustProxy'>;

/** Why the first run asks for the code (for the log line), or undefined when it does not. */
export function setupCodeReason(config: SetupCodeConfig): string | undefined {
  const host = config.host.toLowerCase().replace(/^\[|\]$/g, '');
  if (!(host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)))
    return `the server listens beyond loopback (HOST=${config.host})`;
  if (config.trustProxy !== false) return 'the server is behind a reverse proxy (APP_TRUST_PROXY is set)';
  if (config.isProduction) return 'NODE_ENV=production';
  return undefined;
}

/** True when others may reach the first-run form: then it asks for the code. */
export function setupCodeRequired(config: SetupCodeConfig): boolean {
  return setupCodeReason(config) !== undefined;
}

// Typed by hand: spaces and dashes do not matter, nor the case.
function digest(code: string): Buffer {
  return createHash('sha256').update(code.replace(/[\s-]/g, '').toUpperCase()).digest();
}

/** Compares in constant time (two digests of the same length), whatever `given` is. */
export function setupCodeMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length > 100) return false;
  return timingSafeEqual(digest(expected), digest(given));
}
