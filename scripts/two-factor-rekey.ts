// `npm run two-factor:rekey`: after SESSION_SECRET changed, moves the stored TOTP secrets
// from the previous secret's key to the current one (models/auth/two-factor-crypto.ts).
// The previous SESSION_SECRET is read from standard input (one line), never from the
// command line, where `ps` and the shell history would keep it:
//   printf '%s\n' "$OLD_SESSION_SECRET" | npm run two-factor:rekey
// The current one comes from the configuration, like the server's.
import { configOrExit, openDatabase } from './support.js';
import { reencryptSecrets } from '../models/auth/two-factor-crypto.js';

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

const { config, logger } = configOrExit(1);
const previous = await readStandardInput();
if (!previous) {
  logger.error('the previous SESSION_SECRET is read from standard input: printf \'%s\\n\' "$OLD_SESSION_SECRET" | npm run two-factor:rekey');
  process.exit(2);
}
if (previous === config.sessionSecret) {
  logger.error('the secret given is the current SESSION_SECRET: nothing to move');
  process.exit(2);
}

const { database, knex } = await openDatabase(config, logger);
let exitCode = 0;
try {
  const report = await reencryptSecrets(knex, previous, config.sessionSecret);
  logger.info(report, 'two-factor secrets moved to the current SESSION_SECRET');
  if (report.unreadable > 0) {
    logger.warn({ unreadable: report.unreadable }, 'some secrets are under neither key: those accounts need a recovery code or an administrator reset');
  }
} catch (error) {
  logger.error({ err: error }, 'two-factor rekey failed');
  exitCode = 1;
} finally {
  await knex.destroy();
  await database.stop();
}
process.exit(exitCode);
