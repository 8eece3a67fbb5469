import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from './logger.js';

// Return BIGINT counts and ids as numbers and timestamps as Date (pg default); NUMERIC
// is not used by the schema. Set per connection, not on pg's process-wide registry.
const BIGINT_OID = 20;
const typeParsers = {
  getTypeParser: (oid: number, format: string): unknown =>
    oid === BIGINT_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
};

export function createKnex(connectionString: string, options: { poolMax: number; logger: Logger }): Knex {
  const { logger } = options;
  return knexFactory({
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
      warn: (message: unknown) => logger.warn({ component: 'knex' }, String(message)),
      error: (message: unknown) => logger.error({ component: 'knex' }, String(message instanceof Error ? message.message : message)),
      deprecate: (message: unknown) => logger.warn({ component: 'knex' }, String(message)),
      debug: (message: unknown) => logger.debug({ component: 'knex' }, String(message)),
    },
  });
}
