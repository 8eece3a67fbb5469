// `npm run migrate [-- latest|rollback|reset|status]`: runs the migrations against
// DATABASE_URL, or against the embedded cluster under the data folder when it is unset.
// latest, rollback (the last batch) and reset (every migration) wait for any other
// process migrating the same database (lib/migrations.ts holds an advisory lock). The
// directories are those the site's modules declare (routes/site-modules.ts).
import { configOrExit, openDatabase } from './support.js';
import { migrateLatest, migrateReset, migrateRollback, migrationStatus } from '../lib/migrations.js';
import { siteMigrationDirectories } from '../routes/site-modules.js';

const COMMANDS = ['latest', 'rollback', 'reset', 'status'];
const command = process.argv[2] ?? 'latest';

const { config, logger } = configOrExit(1);
if (!COMMANDS.includes(command)) {
  logger.error(`unknown command "${command}": use ${COMMANDS.join(', ')}`);
  process.exit(2);
}

const { database, knex } = await openDatabase(config, logger);
const directories = siteMigrationDirectories();
const options = { directories, onWait: () => logger.info('another process is migrating this database: waiting for it to finish') };
let exitCode = 0;
try {
  if (command === 'latest') {
    const { batch, migrations } = await migrateLatest(knex, options);
    logger.info({ batch, applied: migrations }, migrations.length ? 'migrations applied' : 'database already up to date');
  } else if (command === 'rollback') {
    const { batch, migrations } = await migrateRollback(knex, options);
    logger.info({ batch, reverted: migrations }, migrations.length ? 'last batch rolled back' : 'nothing to roll back');
  } else if (command === 'reset') {
    const { migrations } = await migrateReset(knex, options);
    logger.info({ reverted: migrations }, migrations.length ? 'every migration rolled back' : 'nothing to roll back');
  } else {
    const { completed, pending, unknown } = await migrationStatus(knex, { directories });
    logger.info({ completed, pending, unknown }, pending.length ? 'pending migrations' : 'database up to date');
  }
} catch (error) {
  logger.error({ err: error }, 'migration failed');
  exitCode = 1;
} finally {
  await knex.destroy();
  await database.stop();
}
process.exit(exitCode);
