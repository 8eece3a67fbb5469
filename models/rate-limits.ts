// Rate-limit counters in PostgreSQL (table app_auth_rate_limits), so that several app
// processes behind one proxy share each client's budget. One atomic upsert per
// counted request: a fixed window per key, restarted once its reset time has passed.
// Time comes from the application's clock so tests can move past a window.
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import type { AppContext } from '../lib/context.js';

const TABLE = 'app_auth_rate_limits';
// Expired rows are swept at most this often per application, by the statement that counts a hit.
const SWEEP_INTERVAL_MS = 10 * 60_000;

const UPSERT = `INSERT INTO ${TABLE} (key, hits, reset_at) VALUES (?, 1, ?)
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN ${TABLE}.reset_at <= ? THEN 1 ELSE ${TABLE}.hits + 1 END,
    reset_at = CASE WHEN ${TABLE}.reset_at <= ? THEN EXCLUDED.reset_at ELSE ${TABLE}.reset_at END
  RETURNING hits, reset_at`;

type Counted = { rows: Array<{ hits: number; reset_at: Date }> };

export async function incrementCounter(ctx: AppContext, key: string, windowMs: number): Promise<ClientRateLimitInfo> {
  const now = ctx.clock.now();
  const resetAt = new Date(now.getTime() + windowMs);
  const values = [key, resetAt, now, now];
  const sweep = now.getTime() - ctx.memo.lastRateLimitSweep >= SWEEP_INTERVAL_MS;
  if (sweep) ctx.memo.lastRateLimitSweep = now.getTime();
  // The sweep rides on the count, so it costs no statement of its own and nothing
  // outlives the request. It leaves out this request's key (one statement may not touch
  // a row twice) and rows another statement holds (it never waits, so never deadlocks).
  const { rows } = sweep
    ? await ctx.db.raw<Counted>(
        `WITH swept AS (
           DELETE FROM ${TABLE} WHERE key IN (SELECT key FROM ${TABLE} WHERE reset_at <= ? AND key <> ? FOR UPDATE SKIP LOCKED)
         ) ${UPSERT}`,
        [now, key, ...values],
      )
    : await ctx.db.raw<Counted>(UPSERT, values);
  const row = rows[0];
  return { totalHits: Number(row.hits), resetTime: new Date(row.reset_at) };
}

export async function readCounter(ctx: AppContext, key: string): Promise<ClientRateLimitInfo | undefined> {
  const row = await ctx.db(TABLE).where({ key }).andWhere('reset_at', '>', ctx.clock.now()).first('hits', 'reset_at');
  return row ? { totalHits: Number(row.hits), resetTime: new Date(row.reset_at) } : undefined;
}

async function decrementCounter(ctx: AppContext, key: string): Promise<void> {
  await ctx.db(TABLE).where({ key }).andWhere('hits', '>', 0).decrement('hits', 1);
}

export async function deleteCounter(ctx: AppContext, key: string): Promise<void> {
  await ctx.db(TABLE).where({ key }).delete();
}

async function deleteCountersWithPrefix(ctx: AppContext, prefix: string): Promise<void> {
  await ctx
    .db(TABLE)
    .whereLike('key', `${prefix.replace(/[\\%_]/g, '\\$&')}%`)
    .delete();
}

/** express-rate-limit Store over the shared table; `prefix` keeps each limiter's keys apart. */
export class PostgresRateLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private windowMs = 60_000;

  constructor(
    private readonly ctx: AppContext,
    prefix: string,
  ) {
    this.prefix = `${prefix}:`;
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return readCounter(this.ctx, this.prefix + key);
  }

  increment(key: string): Promise<IncrementResponse> {
    return incrementCounter(this.ctx, this.prefix + key, this.windowMs);
  }

  decrement(key: string): Promise<void> {
    return decrementCounter(this.ctx, this.prefix + key);
  }

  resetKey(key: string): Promise<void> {
    return deleteCounter(this.ctx, this.prefix + key);
  }

  resetAll(): Promise<void> {
    return deleteCountersWithPrefix(this.ctx, this.prefix);
  }
}
