// What the command-line scripts share: the configuration read as the server reads it
// (a wrong setting is printed and ends the script: there is no page to show it on),
// and a small pool on the site's database (the embedded one started when needed).
import type { Knex } from 'knex';
import { ConfigError, loadConfig, type Config } from '../lib/config.js';
import { createKnex } from '../lib/db.js';
import { ensureDatabase, type RunningDatabase } from '../lib/embedded-postgres.js';
import { createLogger, type Logger } from '../lib/logger.js';

/** The configuration and a logger at its level; exits with `exitCode` when the configuration is wrong. */
export function configOrExit(exitCode: number): { config: Config; logger: Logger } {
  try {
    const config = loadConfig();
    return { config, logger: createLogger(config.logLevel) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(exitCode);
  }
}

/** The site's database (started when it is the embedded one) and a pool of two connections on it. */
export async function openDatabase(config: Config, logger: Logger): Promise<{ database: RunningDatabase; knex: Knex }> {
  const database = await ensureDatabase(config, logger);
  return { database, knex: createKnex(database.url, { poolMax: 2, logger }) };
}
