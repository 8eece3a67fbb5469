// Configuration of the knex CLI, so that `npx knex migrate:latest` (and `migrate:rollback`,
// `migrate:status`) works as typed from the project root with DATABASE_URL set: plain
// JavaScript, which the CLI loads without a TypeScript loader or NODE_OPTIONS.
// - After `npm run build` it runs the compiled migrations of dist/, the ones `node
//   dist/app.js` checks at start; in a checkout never built, the TypeScript sources
//   through tsx. One history either way: knex_migrations records each name without its
//   .ts/.js extension (lib/migrations.ts, MigrationSource).
// - It reads the database settings only (loadDatabaseConfig): no SESSION_SECRET asked
//   in production, no data/session-secret written.
// - The CLI takes no advisory lock: run it from one process at a time (`npm run migrate`
//   and `npm start` wait for each other instead).
import { existsSync } from 'node:fs';

const built = existsSync(new URL('./dist/lib/migrations.js', import.meta.url));
if (!built) {
  const { register } = await import('tsx/esm/api');
  register();
}
const lib = built ? './dist/lib' : './lib';
const extension = built ? 'js' : 'ts';
const { loadDatabaseConfig } = await import(`${lib}/config.${extension}`);
const { MIGRATIONS_TABLE, MigrationSource } = await import(`${lib}/migrations.${extension}`);

const { databaseUrl } = loadDatabaseConfig();
if (!databaseUrl) {
  throw new Error('DATABASE_URL is not set: the knex CLI needs it. With the embedded database, run `npm run migrate` instead.');
}

/** @type {import('knex').Knex.Config} */
export default {
  client: 'pg',
  connection: databaseUrl,
  migrations: { migrationSource: new MigrationSource(), tableName: MIGRATIONS_TABLE },
};
