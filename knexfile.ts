// Configuration for the knex CLI (`npx knex migrate:latest`, `migrate:rollback --all`).
// It needs DATABASE_URL (a real PostgreSQL server, the VPS case); with the embedded
// default, `npm run migrate` starts the embedded cluster and migrates it. The CLI reads
// the same directories and history as `npm run migrate`, but without its advisory lock:
// run it from one process at a time.
import type { Knex } from 'knex';
import { loadConfig } from './lib/config.js';
import { MIGRATIONS_TABLE, MigrationSource } from './lib/migrations.js';

const config = loadConfig();
if (!config.databaseUrl) {
  throw new Error('DATABASE_URL is not set: the knex CLI needs it. With the embedded database, run `npm run migrate` instead.');
}

const knexConfig: Knex.Config = {
  client: 'pg',
  connection: config.databaseUrl,
  migrations: { migrationSource: new MigrationSource(), tableName: MIGRATIONS_TABLE },
};

export default knexConfig;
