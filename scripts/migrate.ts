// `npm run migrate [-- latest|rollback|status]`: runs the migrations against DATABASE_URL,
// or against the embedded cluster under the data folder when DATABASE_URL is unset.
import { loadConfig } from '../lib/config.js';
import { createKnex, pendingMigrations } from '../lib/db.js';
import { ensureDatabase } from '../lib/embedded-postgres.js';
import { logger } from '../lib/logger.js';

const command = process.argv[2] ?? 'latest';
const config = loadConfig();
const database = await ensureDatabase(config);
const knex = createKnex(database.url, 2);
let exitCode = 0;
try {
  if (command === 'latest') {
    const [batch, applied] = await knex.migrate.latest();
    logger.info({ batch, applied }, applied.length ? 'migrations applied' : 'database already up to date');
  } else if (command === 'rollback') {
    const [batch, reverted] = await knex.migrate.rollback(undefined, true);
    logger.info({ batch, reverted }, 'migrations rolled back');
  } else if (command === 'status') {
    const pending = await pendingMigrations(knex);
    logger.info({ pending }, pending.length ? 'pending migrations' : 'database up to date');
  } else {
    logger.error(`unknown command "${command}": use latest, rollback or status`);
    exitCode = 2;
  }
} catch (error) {
  logger.error({ err: error }, 'migration failed');
  exitCode = 1;
} finally {
  await knex.destroy();
  await database.stop();
}
process.exit(exitCode);
