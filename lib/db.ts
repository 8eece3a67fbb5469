import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from './logger.js';
import { metricsOff, type Metrics } from './metrics.js';

// Return BIGINT counts and ids as numbers and timestamps as Date (pg default); NUMERIC
// is not used by the schema. Set per connection, not on pg's process-wide registry.
const BIGINT_OID = 20;
const typeParsers = {
  getTypeParser: (oid: number, format: string): unknown =>
    oid === BIGINT_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
};

/** What /metrics reads of knex's pool (tarn), at each scrape only. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

export interface KnexOptions {
  poolMax: number;
  logger: Logger;
  /** The app's metrics: pool gauges, and statements counted per request. */
  metrics?: Metrics;
}

export function createKnex(connectionString: string, options: KnexOptions): Knex {
  const { logger, metrics = metricsOff } = options;
  const knex = knexFactory({
    client: 'pg',
    connection: { connectionString, application_name: 'site-core', types: typeParsers },
    pool: {
      min: 0,
      max: options.poolMax,
      // A connection killed while idle (server restart, pg_terminate_backend) must
      // not crash the process: log it, and knex discards the broken client.
      afterCreate(connection: pg.Client, done: (error: Error | null, connection: pg.Client) => void) {
        connection.on('error', (error) => logger.warn({ err: error.message }, 'database connection lost'));
        done(null, connection);
      },
    },
    acquireConnectionTimeout: 5000,
    // knex prints to the console by default; its messages belong in the structured log.
    log: {
      warn: (message: unknown) => {
        const text = String(message instanceof Error ? message.message : message).split('\n')[0];
        if (/^Acquire connection error/.test(text)) logger.debug({ component: 'knex' }, text);
        else logger.warn({ component: 'knex' }, text);
      },
      // A failed connection attempt is part of an outage, which the error handler logs
      // once; per attempt it would flood the log (with a stack) on every request.
      error: (message: unknown) => {
        const text = String(message instanceof Error ? message.message : message).split('\n')[0];
        if (/^Acquire connection error/.test(text)) logger.debug({ component: 'knex' }, text);
        else logger.error({ component: 'knex' }, text);
      },
      deprecate: (message: unknown) => logger.warn({ component: 'knex' }, String(message)),
      debug: (message: unknown) => logger.debug({ component: 'knex' }, String(message)),
    },
  });
  if (metrics.registry) {
    // One increment on the request's tally per statement; transactions' statements reach
    // the root instance's 'query' event too. Not even a listener when metrics are off.
    knex.on('query', () => metrics.statement());
    metrics.watchPool(() => {
      // Gone once the knex instance is destroyed (the app closed): an empty pool.
      const pool = (knex.client as { pool?: TarnPool }).pool;
      return {
        inUse: pool?.numUsed() ?? 0,
        idle: pool?.numFree() ?? 0,
        waiting: pool?.numPendingAcquires() ?? 0,
        max: options.poolMax,
      };
    });
  }
  return knex;
}
