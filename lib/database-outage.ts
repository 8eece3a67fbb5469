// A database outage is logged twice per process, whoever meets it first (a request
// answered 503, a background task such as the scheduler's check every second): once
// when it starts, once when the first statement succeeds again. Without this, every
// refused request or failed periodic task would add a line of its own (about 3,600
// an hour per process for the scheduler alone).
import type { Knex } from 'knex';
import { isDatabaseUnavailable } from './errors.js';
import type { Logger } from './logger.js';

/** The application's memory of an outage (ctx.memo). */
export interface OutageMemo {
  databaseDown: boolean;
}

/**
 * When `error` says the database cannot be reached: logs the outage's start unless it
 * is already known, and returns true (the caller adds no line of its own).
 */
export function noteDatabaseDown(memo: OutageMemo, logger: Logger, error: unknown, by: string): boolean {
  if (!isDatabaseUnavailable(error)) return false;
  if (memo.databaseDown) return true;
  memo.databaseDown = true;
  logger.error(
    { err: error instanceof Error ? error.message : String(error), by },
    'database unavailable: requests answer 503 and background work waits until it is back',
  );
  return true;
}

/** Logs the end of an outage once, at the first statement that succeeds after it. */
export function watchDatabaseOutage(db: Knex, memo: OutageMemo, logger: Logger): void {
  db.on('query-response', () => {
    if (!memo.databaseDown) return;
    memo.databaseDown = false;
    logger.info('database available again');
  });
}
