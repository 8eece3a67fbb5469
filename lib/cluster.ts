// Several processes on one host (WEB_CONCURRENCY above 1): a node:cluster primary that
// serves nothing itself. It starts the embedded PostgreSQL when DATABASE_URL is unset,
// applies or checks the migrations once, then forks the workers, each a whole server
// (app.ts) on the shared port, and hands them what must be the same in all of them:
// the database URL, the session secret, the first-run setup code, and each one's share
// of the password-hashing threads. It replaces a worker that dies (with a back-off, so
// one that dies at start does not fork in a loop) and, on SIGTERM or SIGINT, holds the
// drain window (SHUTDOWN_DELAY_MS) once for all of them, stops them one by one with the
// server's own graceful stop, then the database, then exits. Once the stop began no
// worker is started, and one that was starting is ended at once.
import cluster, { type Worker } from 'node:cluster';
import { serveClusterScrapes } from './cluster-metrics.js';
import { ConfigError, type Config } from './config.js';
import { createKnex } from './db.js';
import { ensureDatabase } from './embedded-postgres.js';
import { createLogger, prettyLogsWanted, type Logger } from './logger.js';
import { migrateLatest, pendingMigrations } from './migrations.js';
import { newSetupCode } from './setup-code.js';

/** The message a worker receives when the primary stops it (app.ts runs its graceful stop). */
export const STOP_MESSAGE = 'site:stop';
/** A worker's round trip to the primary (its graceful stop: lib/graceful-stop.ts). */
const PING_MESSAGE = 'site:ping';
const PONG_MESSAGE = 'site:pong';
/** The message that opens the drain window in every worker: the probes answer 503, requests are served. */
export const DRAIN_MESSAGE = 'site:drain';

/**
 * Each worker's number of hashing threads: `total` (PASSWORD_HASH_THREADS, by default
 * CPU cores − 1) split between the workers, the first ones taking the remainder, and
 * never less than one each (a worker without a thread could not log anyone in).
 */
export function hashThreadShares(total: number, workers: number): number[] {
  const base = Math.floor(total / workers);
  const extra = total % workers;
  return Array.from({ length: workers }, (_, index) => Math.max(1, base + (index < extra ? 1 : 0)));
}

export interface BackOff {
  /** Wait before the first restart of a worker that died young. */
  firstMs: number;
  /** The longest wait, however often it died. */
  maxMs: number;
  /** A worker that lived this long died of something else than its start: replaced at once. */
  stableMs: number;
}

export const RESTART_BACK_OFF: BackOff = { firstMs: 1000, maxMs: 60_000, stableMs: 30_000 };

/** Wait before restarting a slot whose workers died young `youngDeaths` times in a row (0: at once). */
export function restartDelay(youngDeaths: number, backOff: BackOff = RESTART_BACK_OFF): number {
  if (youngDeaths <= 0) return 0;
  return Math.min(backOff.maxMs, backOff.firstMs * 2 ** (youngDeaths - 1));
}

export interface PrimaryOptions {
  /** Apply pending migrations before forking (`npm start`); otherwise refuse to start while some are pending. */
  migrate: boolean;
  /** The site's migration directories (core and modules). */
  migrationDirectories: string[];
  /** How long a worker may take to stop before it is killed (its own limit is 10 s). */
  stopTimeoutMs?: number;
}

interface Slot {
  index: number;
  threads: number;
  worker?: Worker;
  startedAt: number;
  listening: boolean;
  youngDeaths: number;
  restart?: NodeJS.Timeout;
}

/** Prepares the database, forks the workers and supervises them until a signal stops everything. */
export async function runPrimary(config: Config, options: PrimaryOptions): Promise<void> {
  const logger = createLogger(config.logLevel, { primary: true, pid: process.pid }, { pretty: prettyLogsWanted(config) });
  const database = await ensureDatabase(config, logger);
  try {
    await prepareSchema(database.url, options, logger);
  } catch (error) {
    await database.stop();
    throw error;
  }

  const count = config.webConcurrency;
  const shares = hashThreadShares(config.passwordHashThreads, count);
  // The same in every worker: sessions and form tokens made by one are read by another.
  const sharedEnv = {
    DATABASE_URL: database.url,
    SESSION_SECRET: config.sessionSecret,
    SITE_SETUP_CODE: config.setupCode ?? newSetupCode(),
  };
  const slots: Slot[] = shares.map((threads, index) => ({ index, threads, startedAt: 0, listening: false, youngDeaths: 0 }));
  let up = false;
  let stopping: Promise<void> | undefined;

  const fork = (slot: Slot) => {
    slot.restart = undefined;
    // A restart timer that fired as the stop began: nothing is started during a stop.
    if (stopping) return;
    slot.listening = false;
    slot.startedAt = Date.now();
    slot.worker = cluster.fork({ ...sharedEnv, PASSWORD_HASH_THREADS: String(slot.threads) });
    if (up) logger.info({ slot: slot.index, workerPid: slot.worker.process.pid }, 'starting a replacement worker');
  };
  const slotOf = (worker: Worker) => slots.find((slot) => slot.worker === worker);

  cluster.on('listening', (worker) => {
    const slot = slotOf(worker);
    if (!slot || slot.listening) return;
    slot.listening = true;
    if (stopping) {
      // Started before the stop began, and listening before its SIGTERM (stopStarting) landed.
      logger.info({ slot: slot.index, workerPid: worker.process.pid }, 'a worker started during the stop: stopping it');
    } else if (up) {
      logger.info({ slot: slot.index, workerPid: worker.process.pid }, 'worker replaced');
    } else if (slots.every((each) => each.listening)) {
      up = true;
      logger.info(
        {
          url: `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`,
          baseUrl: config.baseUrl,
          workers: count,
          workerPids: slots.map((each) => each.worker?.process.pid),
          hashThreads: shares,
        },
        'server listening',
      );
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    const slot = slotOf(worker);
    if (!slot) return;
    slot.worker = undefined;
    if (stopping) return;
    if (!up) {
      // A worker that cannot start (port taken, database unreachable…) has said why in
      // its own lines; retrying would not help, so the start fails as one process would.
      logger.fatal({ slot: slot.index, workerPid: worker.process.pid, code, signal }, 'a worker could not start: stopping');
      void stop(1);
      return;
    }
    const lived = Date.now() - slot.startedAt;
    slot.youngDeaths = lived < RESTART_BACK_OFF.stableMs ? slot.youngDeaths + 1 : 0;
    const delayMs = restartDelay(slot.youngDeaths);
    logger.error({ slot: slot.index, workerPid: worker.process.pid, code, signal, livedMs: lived, restartInMs: delayMs }, 'worker exited: starting another');
    slot.restart = setTimeout(() => fork(slot), delayMs);
  });

  // A worker still starting serves nothing yet: SIGTERM ends it at once (app.ts exits at
  // once on a SIGTERM that comes before it listens). Before, it was sent the stop message
  // it could not hear yet, ran until killed 15 s later, and the primary exited 1. Its
  // exit is clean whatever its code, unless it listened meanwhile.
  const stopStarting = (slot: Slot, timeoutMs: number): Promise<boolean> => {
    const worker = slot.worker;
    if (!worker || worker.isDead()) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const kill = setTimeout(() => worker.process.kill('SIGKILL'), timeoutMs);
      worker.once('exit', (code) => {
        clearTimeout(kill);
        resolve(code === 0 || !slot.listening);
      });
      worker.process.kill('SIGTERM');
    });
  };

  const stopWorker = (slot: Slot, timeoutMs: number): Promise<boolean> => {
    const worker = slot.worker;
    if (!worker || worker.isDead()) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const kill = setTimeout(() => {
        logger.error({ slot: slot.index, workerPid: worker.process.pid }, 'worker did not stop in time: killed');
        worker.process.kill('SIGKILL');
      }, timeoutMs);
      worker.once('exit', (code) => {
        clearTimeout(kill);
        resolve(code === 0);
      });
      // Its channel closed (it is exiting): a signal says the same.
      worker.send({ type: STOP_MESSAGE }, (error) => error && worker.process.kill('SIGTERM'));
    });
  };

  const tellListening = (type: string) => {
    for (const slot of slots) {
      // One gone meanwhile: its exit is handled as any other.
      if (slot.listening) slot.worker?.send({ type }, () => undefined);
    }
  };

  // One by one: while one worker finishes its requests, the others take the new
  // connections. A worker still starting has none: it is ended beside them, at once.
  const stop = (exitCode: number) =>
    (stopping ??= (async () => {
      for (const slot of slots) clearTimeout(slot.restart);
      const timeoutMs = options.stopTimeoutMs ?? 15_000;
      if (exitCode === 0 && config.shutdownDelayMs > 0) {
        tellListening(DRAIN_MESSAGE);
        logger.info({ delayMs: config.shutdownDelayMs }, 'stopping: /healthz and /readyz answer 503, requests are still served until the drain window ends');
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
      }
      const serving = slots.filter((slot) => slot.listening);
      const starting = slots.filter((slot) => slot.worker && !slot.listening).map((slot) => stopStarting(slot, timeoutMs));
      let clean = exitCode === 0;
      for (const slot of serving) {
        if (!(await stopWorker(slot, timeoutMs))) clean = false;
      }
      if ((await Promise.all(starting)).includes(false)) clean = false;
      await database.stop();
      logger.info('stopped');
      process.exit(clean ? exitCode : 1);
    })());

  const onSignal = (signal: string) => {
    if (stopping) return;
    logger.info({ signal }, 'shutting down: stopping the workers one by one');
    void stop(0);
  };
  // `on`, not `once`: a loader such as tsx exits the process itself when it sees no
  // other listener left for the signal.
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  // Answered in order after whatever the primary had to send that worker before (a
  // connection handed over), and after the worker's earlier messages (its close).
  cluster.on('message', (worker, message: { type?: unknown; id?: unknown } | null) => {
    if (message?.type === PING_MESSAGE) worker.send({ type: PONG_MESSAGE, id: message.id }, () => undefined);
  });

  // A worker taking a /metrics scrape asks here for the sum of every worker's metrics.
  if (config.metricsToken) serveClusterScrapes(logger);

  logger.info({ workers: count, hashThreads: shares }, 'starting the workers');
  for (const slot of slots) fork(slot);
}

/** Migrations run here, once, before any worker exists (same lock as `npm run migrate`). */
async function prepareSchema(url: string, options: PrimaryOptions, logger: Logger): Promise<void> {
  // Two connections: the migration lock holds one while the migrations run on the other.
  const knex = createKnex(url, { poolMax: 2, logger });
  try {
    const { migrationDirectories: directories } = options;
    if (options.migrate) {
      const onWait = () => logger.info('another process is migrating this database: waiting for it to finish');
      const { batch, migrations } = await migrateLatest(knex, { directories, onWait });
      if (migrations.length > 0) logger.info({ batch, applied: migrations }, 'migrations applied');
    }
    const pending = await pendingMigrations(knex, { directories });
    if (pending.length > 0) {
      throw new ConfigError(
        `The database schema is not up to date (${pending.length} pending migration(s): ${pending.join(', ')}). ` +
          'Run `npm run migrate` (or `npx knex migrate:latest` with DATABASE_URL set) before starting the server.',
      );
    }
  } finally {
    await knex.destroy();
  }
}

/**
 * In a worker: a function that sends the primary a message and resolves when its answer
 * comes back (or after a second, should the primary be gone).
 */
export function createPrimaryRoundTrip(): () => Promise<void> {
  let next = 0;
  const waiting = new Map<number, () => void>();
  process.on('message', (message: { type?: unknown; id?: unknown } | null) => {
    if (message?.type !== PONG_MESSAGE || typeof message.id !== 'number') return;
    waiting.get(message.id)?.();
  });
  return () =>
    new Promise<void>((resolve) => {
      const id = next++;
      const done = () => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve();
      };
      const timer = setTimeout(done, 1000);
      waiting.set(id, done);
      process.send?.({ type: PING_MESSAGE, id }, undefined, undefined, (error: Error | null) => error && done());
    });
}
