// The checks behind GET /readyz. Each answers 'ok' or one word saying what is wrong;
// each has a deadline, so a database that hangs makes the probe answer 503 in about a
// second instead of holding it until the pool's own 5 s acquire timeout. The public
// cache's listening connection is named too, without making the instance unready: while
// it reconnects every read bypasses the cache and stays correct (and an unready verdict
// for a LISTEN broken everywhere would take every instance out at once).
import type { AppContext } from '../lib/context.js';
import { pendingMigrations } from '../lib/migrations.js';

/** How long the database may take to answer a probe's statement. */
const READINESS_TIMEOUT_MS = 1000;

export interface ReadinessChecks {
  /** 'stopping' once the graceful stop began. */
  server: 'ok' | 'stopping';
  /** A `SELECT 1` through the pool: refused or failed, or no answer within the deadline. */
  database: 'ok' | 'unavailable' | 'timeout';
  /** Pending migrations (the server refuses to start with them; a rollback while it runs brings them back). */
  migrations: 'ok' | 'pending' | 'unknown';
  /** The public cache's LISTEN connection (lib/public-cache-listener.ts): informative only. */
  cacheListener: 'listening' | 'connecting' | 'reconnecting' | 'off';
}

/** The checks that decide the verdict (cacheListener does not). */
export function isReady(checks: ReadinessChecks): boolean {
  return checks.server === 'ok' && checks.database === 'ok' && checks.migrations === 'ok';
}

const TIMED_OUT = Symbol('timed out');

/** `work`'s result, or TIMED_OUT after `ms` (the work itself goes on and its outcome is dropped). */
async function within<T>(ms: number, work: Promise<T>): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function checkDatabase(ctx: AppContext): Promise<ReadinessChecks['database']> {
  try {
    return (await within(READINESS_TIMEOUT_MS, ctx.db.raw('SELECT 1'))) === TIMED_OUT ? 'timeout' : 'ok';
  } catch {
    return 'unavailable';
  }
}

async function checkMigrations(ctx: AppContext): Promise<ReadinessChecks['migrations']> {
  try {
    const pending = await within(READINESS_TIMEOUT_MS, pendingMigrations(ctx.db, { directories: ctx.site.migrationDirectories }));
    if (pending === TIMED_OUT) return 'unknown';
    return pending.length > 0 ? 'pending' : 'ok';
  } catch {
    return 'unknown';
  }
}

export async function checkReadiness(ctx: AppContext): Promise<ReadinessChecks> {
  const server = ctx.memo.stopping ? 'stopping' : 'ok';
  const database = await checkDatabase(ctx);
  // Without a database the history cannot be read: say so rather than guess.
  const migrations = database === 'ok' ? await checkMigrations(ctx) : 'unknown';
  return { server, database, migrations, cacheListener: ctx.publicCache.listenerState };
}
