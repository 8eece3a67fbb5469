// Rate-limit counters in PostgreSQL (table app_auth_rate_limits), so that several app
// processes behind one proxy share each client's budget. One atomic upsert per
// counted request: a fixed window per key, restarted once its reset time has passed.
// Time comes from lib/clock.ts so tests can move past a window instead of waiting.
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import { nowMs } from '../lib/clock.js';
import { db } from '../lib/db.js';
import { logger } from '../lib/logger.js';

const TABLE = 'app_auth_rate_limits';
// Expired rows are swept now and then by whichever process counts a hit.
const SWEEP_INTERVAL_MS = 10 * 60_000;
let lastSweep = 0;

export async function incrementCounter(key: string, windowMs: number): Promise<ClientRateLimitInfo> {
  const now = new Date(nowMs());
  const resetAt = new Date(now.getTime() + windowMs);
  const result = await db().raw(
    `INSERT INTO ${TABLE} (key, hits, reset_at) VALUES (?, 1, ?)
     ON CONFLICT (key) DO UPDATE SET
       hits = CASE WHEN ${TABLE}.reset_at <= ? THEN 1 ELSE ${TABLE}.hits + 1 END,
       reset_at = CASE WHEN ${TABLE}.reset_at <= ? THEN EXCLUDED.reset_at ELSE ${TABLE}.reset_at END
     RETURNING hits, reset_at`,
    [key, resetAt, now, now],
  );
  const row = result.rows[0];
  sweepExpired(now);
  return { totalHits: Number(row.hits), resetTime: new Date(row.reset_at) };
}

export async function readCounter(key: string): Promise<ClientRateLimitInfo | undefined> {
  const row = await db()(TABLE).where({ key }).andWhere('reset_at', '>', new Date(nowMs())).first('hits', 'reset_at');
  return row ? { totalHits: Number(row.hits), resetTime: new Date(row.reset_at) } : undefined;
}

export async function decrementCounter(key: string): Promise<void> {
  await db()(TABLE).where({ key }).andWhere('hits', '>', 0).decrement('hits', 1);
}

export async function deleteCounter(key: string): Promise<void> {
  await db()(TABLE).where({ key }).delete();
}

export async function deleteCountersWithPrefix(prefix: string): Promise<void> {
  await db()(TABLE).whereLike('key', `${prefix.replace(/[\\%_]/g, '\\$&')}%`).delete();
}

function sweepExpired(now: Date): void {
  if (now.getTime() - lastSweep < SWEEP_INTERVAL_MS) return;
  lastSweep = now.getTime();
  db()(TABLE)
    .where('reset_at', '<=', now)
    .delete()
    .catch((error: unknown) => logger.warn({ err: (error as Error).message }, 'could not sweep expired rate-limit counters'));
}

/** express-rate-limit Store over the shared table; `prefix` keeps each limiter's keys apart. */
export class PostgresRateLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private windowMs = 60_000;

  constructor(prefix: string) {
    this.prefix = `${prefix}:`;
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return readCounter(this.prefix + key);
  }

  increment(key: string): Promise<IncrementResponse> {
    return incrementCounter(this.prefix + key, this.windowMs);
  }

  decrement(key: string): Promise<void> {
    return decrementCounter(this.prefix + key);
  }

  resetKey(key: string): Promise<void> {
    return deleteCounter(this.prefix + key);
  }

  resetAll(): Promise<void> {
    return deleteCountersWithPrefix(this.prefix);
  }
}
