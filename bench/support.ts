// Shared by the benchmarks: command-line options, and a scratch database (on
// BENCH_DATABASE_URL's or TEST_DATABASE_URL's server when set, else on a throw-away
// embedded PostgreSQL), migrated, dropped by cleanup().
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createKnex } from '../lib/db.js';
import { freePort, startEmbeddedPostgres, type RunningDatabase } from '../lib/embedded-postgres.js';
import { createLogger } from '../lib/logger.js';
import { migrateLatest } from '../lib/migrations.js';
import { siteMigrationDirectories } from '../routes/site-modules.js';

// The benchmarks' own messages (scratch cluster, migrations): warnings and errors only.
const logger = createLogger('warn');

/** `--name value` on the command line, else the environment variable, else the fallback. */
export function option(name: string, env: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  if (index >= 0 && process.argv[index + 1]) return process.argv[index + 1];
  return process.env[env] || fallback;
}

export interface ScratchDatabase {
  url: string;
  /** A folder for the servers' data (outbox, uploads, secret). */
  dataDir: string;
  cleanup(): Promise<void>;
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** `orDatabaseUrl`: without BENCH_/TEST_DATABASE_URL, use DATABASE_URL's server before an embedded one. */
export async function scratchDatabase(prefix: string, options: { orDatabaseUrl?: boolean } = {}): Promise<ScratchDatabase> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as an unprivileged user under root
  let adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || (options.orDatabaseUrl ? process.env.DATABASE_URL : undefined);
  let embedded: RunningDatabase | undefined;
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres({ directory: path.join(scratch, 'pg'), port: await freePort(), persistent: false, database: 'postgres', logger });
    adminUrl = embedded.url;
  }
  const name = `${prefix.replace(/\W/g, '_')}_${process.pid}`;
  await adminQuery(adminUrl, `CREATE DATABASE "${name}"`);
  const parsed = new URL(adminUrl);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();
  const knex = createKnex(url, { poolMax: 2, logger });
  try {
    await migrateLatest(knex, { directories: siteMigrationDirectories() });
  } finally {
    await knex.destroy();
  }
  return {
    url,
    dataDir: path.join(scratch, 'data'),
    async cleanup() {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await embedded?.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
