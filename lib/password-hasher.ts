// Password hashing off the event loop, in a fixed pool of worker threads managed by
// piscina (queueing, a crashed thread's job rejected and the thread replaced, shutdown).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import type * as PiscinaModule from 'piscina';
import { lazyRequire } from './lazy-require.js';
import type { HashJob, HashWorkerData, ThreadPriority } from './hash-worker.js';
import type { Logger } from './logger.js';
import { metricsOff, type HashOperation, type Metrics } from './metrics.js';

// The task file sits beside this one: hash-worker.ts under tsx (the threads inherit
// tsx's loader through process.execArgv) and the compiled hash-worker.js in dist/.
// Loaded with the first hash (the pool starts then), not at every start.
const piscina = lazyRequire<typeof PiscinaModule>('piscina');

const HASH_WORKER = new URL(`./hash-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface PasswordHasherOptions {
  cost: number;
  threads: number;
  /** Nice value of the hashing threads on Linux (PASSWORD_HASH_NICE; 0 leaves them at the process's priority). */
  nice?: number;
  logger: Logger;
  /** The app's metrics: queue length at each scrape, and each job's time from submission to result. */
  metrics?: Metrics;
  /** Another task file with hash-worker's default export (tests only: one that can crash). */
  workerFile?: URL;
}

/** The application's hashing threads: started on first use, closed with the app. */
export function createPasswordHasher(options: PasswordHasherOptions): PasswordHasher {
  let pool: Piscina<HashJob, string | boolean | ThreadPriority> | undefined;
  let priorityChecked = false;
  const workerData: HashWorkerData = { nice: options.nice ?? 0 };
  const running = () => {
    if (!pool) {
      pool = new (piscina().Piscina)<HashJob, string | boolean | ThreadPriority>({
        filename: (options.workerFile ?? HASH_WORKER).href,
        workerData,
        // A fixed pool: threads stay up (bcrypt is the whole job), the rest waits in order.
        minThreads: options.threads,
        maxThreads: options.threads,
        idleTimeout: Infinity,
        recordTiming: false,
        // First come, first hashed. By default piscina puts a task it could not hand to a
        // busy thread at the back of the queue: under a steady flood of logins the same
        // login kept being sent back, and waited over 10 s while later ones passed.
        stricterFIFO: true,
      });
      // Failures outside any job (a job's own failure rejects its promise instead).
      pool.on('error', (error: Error) => options.logger.error({ err: error.message }, 'password hashing thread failed'));
      if (!priorityChecked && workerData.nice > 0) {
        priorityChecked = true;
        void checkPriority(pool, workerData.nice, options.logger);
      }
    }
    return pool;
  };
  const metrics = options.metrics ?? metricsOff;
  metrics.watchHashQueue(() => pool?.queueSize ?? 0);
  const run = async (operation: HashOperation, job: HashJob): Promise<string | boolean | ThreadPriority> => {
    if (!metrics.registry) return running().run(job);
    const started = process.hrtime.bigint();
    try {
      return await running().run(job);
    } finally {
      metrics.hashed(operation, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
  return {
    hash: async (password) => (await run('hash', { op: 'hash', password, cost: options.cost })) as string,
    verify: async (password, hash) => (await run('verify', { op: 'verify', password, hash })) as boolean,
    async close() {
      const current = pool;
      pool = undefined;
      await current?.close();
    },
  };
}

// Once per pool: a thread that could not lower its priority (no /proc) would compete with
// the event loop as an ordinary thread; the log says so, since PASSWORD_HASH_THREADS was
// then sized for niced threads.
async function checkPriority(pool: Piscina<HashJob, string | boolean | ThreadPriority>, nice: number, logger: Logger): Promise<void> {
  // Elsewhere a thread cannot renice itself alone; the default count is then cores − 1 (lib/config.ts).
  if (process.platform !== 'linux') {
    logger.debug({ nice }, 'password hashing threads keep the process priority on this platform');
    return;
  }
  try {
    const report = (await pool.run({ op: 'priority' })) as ThreadPriority;
    if (report.error || report.nice === undefined || report.nice < nice) {
      logger.warn({ nice, err: report.error, got: report.nice }, 'a password hashing thread could not lower its priority');
    }
  } catch {
    // The pool closed first, or the thread died: nothing to report about priorities.
  }
}
