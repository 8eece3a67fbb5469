// Password hashing off the event loop, in a fixed pool of worker threads managed by
// piscina (queueing, a crashed thread's job rejected and the thread replaced, shutdown).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { HashJob } from './hash-worker.js';
import type { Logger } from './logger.js';
import { metricsOff, type HashOperation, type Metrics } from './metrics.js';

// The task file sits beside this one: hash-worker.ts under tsx (the threads inherit
// tsx's loader through process.execArgv) and the compiled hash-worker.js in dist/.
const HASH_WORKER = new URL(`./hash-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface PasswordHasherOptions {
  cost: number;
  threads: number;
  logger: Logger;
  /** The app's metrics: queue length at each scrape, and each job's time from submission to result. */
  metrics?: Metrics;
  /** Another task file with hash-worker's default export (tests only: one that can crash). */
  workerFile?: URL;
}

/** The application's hashing threads: started on first use, closed with the app. */
export function createPasswordHasher(options: PasswordHasherOptions): PasswordHasher {
  let pool: Piscina<HashJob, string | boolean> | undefined;
  const running = () => {
    if (!pool) {
      pool = new Piscina<HashJob, string | boolean>({
        filename: (options.workerFile ?? HASH_WORKER).href,
        // A fixed pool: threads stay up (bcrypt is the whole job), the rest waits in order.
        minThreads: options.threads,
        maxThreads: options.threads,
        idleTimeout: Infinity,
        recordTiming: false,
      });
      // Failures outside any job (a job's own failure rejects its promise instead).
      pool.on('error', (error: Error) => options.logger.error({ err: error.message }, 'password hashing thread failed'));
    }
    return pool;
  };
  const metrics = options.metrics ?? metricsOff;
  metrics.watchHashQueue(() => pool?.queueSize ?? 0);
  const run = async (operation: HashOperation, job: HashJob): Promise<string | boolean> => {
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
