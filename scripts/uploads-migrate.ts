// `npm run uploads:migrate -- --to database|disk`: moves the uploaded files stored on one
// side (UPLOAD_DIR or PostgreSQL) to the other (lib/upload-migrate.ts), with the server's
// configuration. Run it while the site is up, then set UPLOAD_STORAGE to the destination
// and restart; run it again afterwards to move what was uploaded in between (it skips what
// is already there). Prints moved, skipped and failed; exits 1 when a file failed, 2 on a
// wrong command line.
import { UPLOAD_STORAGE_KINDS, type UploadStorageKind } from '../lib/config.js';
import { configOrExit, openDatabase } from './support.js';
import { migrateUploads } from '../lib/upload-migrate.js';
import { createUploadStore } from '../lib/upload-storage.js';

const usage = 'usage: npm run uploads:migrate -- --to database|disk';

/** The destination, or the message saying what is wrong with the command line. */
function destinationOf(args: string[]): { to: UploadStorageKind } | { error: string } {
  const at = args.findIndex((arg) => arg === '--to' || arg.startsWith('--to='));
  if (at === -1) return { error: `the destination is missing (--to database or --to disk)\n${usage}` };
  const value = args[at].startsWith('--to=') ? args[at].slice('--to='.length) : args[at + 1];
  const unknown = args.filter((arg, index) => index !== at && !(index === at + 1 && !args[at].includes('=')));
  if (unknown.length > 0) return { error: `unknown argument: ${unknown.join(' ')}\n${usage}` };
  const kind = UPLOAD_STORAGE_KINDS.find((candidate) => candidate === value);
  return kind ? { to: kind } : { error: `--to must be "database" or "disk" (got "${value ?? ''}")\n${usage}` };
}

const parsed = destinationOf(process.argv.slice(2));
if ('error' in parsed) {
  console.error(parsed.error);
  process.exit(2);
}
const { to } = parsed;

const { config, logger } = configOrExit(2);
const { database, knex } = await openDatabase(config, logger);
let exitCode = 0;
try {
  const from = to === 'disk' ? 'database' : 'disk';
  const report = await migrateUploads(createUploadStore(config, knex), to);
  for (const failure of report.failures) console.error(`failed: ${failure.name}: ${failure.error}`);
  console.log(`uploads ${from} → ${to}: moved ${report.moved}, skipped ${report.skipped} (already there), failed ${report.failed}`);
  if (report.failed > 0) exitCode = 1;
} catch (error) {
  logger.error({ err: error }, 'uploads migration stopped');
  exitCode = 1;
} finally {
  await knex.destroy();
  await database.stop();
}
process.exit(exitCode);
