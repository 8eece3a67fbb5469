// The shapes of the configuration's values that are more than a Joi type: budgets,
// durations, the trusted proxy, the HSTS duration. lib/config.ts reads the environment
// and calls these; nothing here reads process.env.
import proxyAddr from 'proxy-addr';

export class ConfigError extends Error {}

export interface RateLimitBudget {
  max: number;
  windowMs: number;
}

export type TrustProxySetting = false | number | string[];

const WINDOW_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseRateLimit(value: string, variable: string): RateLimitBudget {
  const match = /^(\d+)\/(\d+)([smhd])$/.exec(value.trim());
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) {
    throw new ConfigError(`${variable} must look like "10/15m" (count/window, window in s, m, h or d); got "${value}"`);
  }
  return { max: Number(match[1]), windowMs: Number(match[2]) * WINDOW_UNITS[match[3]] };
}

// `true` would trust any X-Forwarded-For, letting every client pick its own address
// and so its own rate-limit bucket: refused on purpose. A list is checked by
// proxy-addr itself (what Express compiles `trust proxy` with), so a value Express
// would reject on the first request (`10.0.0.0/99`, `10.0.0.300`) stops the start.
export function parseTrustProxy(value: string | undefined): TrustProxySetting {
  if (value === undefined || value.trim() === '') return false;
  const trimmed = value.trim();
  if (trimmed.toLowerCase() === 'true') {
    throw new ConfigError("APP_TRUST_PROXY=true is refused: it would let any client choose its address; give a hop count or the proxies' addresses");
  }
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    if (hops < 1 || hops > 10) throw new ConfigError('APP_TRUST_PROXY as a hop count must be between 1 and 10');
    return hops;
  }
  const entries = trimmed
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  try {
    proxyAddr.compile(entries);
  } catch (error) {
    throw new ConfigError(
      `APP_TRUST_PROXY must be a hop count (1–10), "loopback", "linklocal", "uniquelocal" or a comma-separated list of addresses/subnets: ${(error as Error).message}`,
    );
  }
  return entries;
}

/** A duration such as "30m", "12h" or "2d" (s, m, h or d) in milliseconds, between `minMs` and `maxMs`. */
export function parseDuration(value: string, variable: string, minMs: number, maxMs: number): number {
  const match = /^(\d+)([smhd])$/.exec(value.trim());
  const ms = match ? Number(match[1]) * WINDOW_UNITS[match[2]] : NaN;
  if (!(ms >= minMs && ms <= maxMs)) {
    throw new ConfigError(
      `${variable} must be a duration such as "30m", "12h" or "2d" (s, m, h or d), from ${minMs / 60_000} minutes to ${maxMs / 86_400_000} days; got "${value}"`,
    );
  }
  return ms;
}

/** Two years: what HSTS preload lists ask for, and a ceiling against a typo. */
const HSTS_MAX_AGE_LIMIT = 63_072_000;

/** HSTS_MAX_AGE: seconds (0 tells browsers to forget an earlier rule), or `off` for no header at all; null = off. */
export function parseHstsMaxAge(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return 31_536_000;
  const trimmed = value.trim().toLowerCase();
  if (trimmed === 'off') return null;
  if (!/^\d+$/.test(trimmed) || Number(trimmed) > HSTS_MAX_AGE_LIMIT) {
    throw new ConfigError(
      `HSTS_MAX_AGE must be a number of seconds from 0 to ${HSTS_MAX_AGE_LIMIT} (two years), or "off" to send no Strict-Transport-Security; got "${value}"`,
    );
  }
  return Number(trimmed);
}
