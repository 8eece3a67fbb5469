// Configuration of the knex CLI (`npx knex migrate:latest`, `migrate:rollback`,
// `migrate:status`), typed. The CLI itself loads knexfile.js, which loads this source
// through tsx (its compiled copy in dist/ only where tsx is not installed): the CLI
// finds `.js` before `.ts` and cannot load TypeScript as an ES module on Node 20.
// - It reads the database settings only (loadDatabaseConfig): no SESSION_SECRET asked
//   in production, no data/session-secret written.
// - One history with `npm run migrate`: knex_migrations records each name without its
//   .ts/.js extension (lib/migrations.ts, MigrationSource).
// - The directories are those the site's modules declare (routes/site-modules.ts).
import type { Knex } from 'knex';
import { loadDatabaseConfig } from './lib/config.js';
import { MIGRATIONS_TABLE, MigrationSource } from './lib/migrations.js';
import { siteMigrationDirectories } from './routes/site-modules.js';

const { databaseUrl } = loadDatabaseConfig();
if (!databaseUrl) {
  throw new Error('DATABASE_URL is not set: the knex CLI needs it. With the embedded database, run `npm run migrate` instead.');
}

const config: Knex.Config = {
  client: 'pg',
  connection: databaseUrl,
  migrations: { migrationSource: new MigrationSource(siteMigrationDirectories()), tableName: MIGRATIONS_TABLE },
};

export default config;
