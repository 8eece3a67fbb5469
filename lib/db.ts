import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from './logger.js';
import { projectRoot } from './paths.js';

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
    migrations: { migrationSource: new MigrationSource(), tableName: 'knex_migrations' },
  });
}

/**
 * Knex records a migration under its file name; stripping the extension lets the
 * TypeScript sources (tsx, tests) and the compiled dist/ files share one history.
 */
export class MigrationSource implements Knex.MigrationSource<string> {
  constructor(private readonly directory = resolveMigrationsDir()) {}

  async getMigrations(): Promise<string[]> {
    return readdirSync(this.directory)
      .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
      .sort();
  }

  getMigrationName(file: string): string {
    return file.replace(/\.(ts|js)$/, '');
  }

  async getMigration(file: string): Promise<Knex.Migration> {
    return import(pathToFileURL(path.join(this.directory, file)).href);
  }
}

function resolveMigrationsDir(): string {
  // Compiled runs load dist/migrations (.js); sources load migrations/ (.ts).
  const compiled = import.meta.url.includes('/dist/');
  return path.join(projectRoot, compiled ? 'dist/migrations' : 'migrations');
}

/** Names of the migrations not yet applied to this database. */
export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const [, pending] = (await knex.migrate.list()) as [unknown[], Array<{ file: string } | string>];
  return pending.map((entry) => (typeof entry === 'string' ? entry : entry.file));
}
