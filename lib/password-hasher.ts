import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { logger } from './logger.js';

const require = createRequire(import.meta.url);

// The worker's code is plain CommonJS evaluated in the thread, so it runs the same from
// the TypeScript sources (tsx) and from dist/, with no loader to pass along.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptPath);
parentPort.on('message', (job) => {
  try {
    const result = job.op === 'hash' ? bcrypt.hashSync(job.password, job.cost) : bcrypt.compareSync(job.password, job.hash);
    parentPort.postMessage({ id: job.id, result });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: error.message });
  }
});
`;

// bcrypt costs ~100 ms of CPU per hash at cost 11: on the main thread a burst of
// logins would stall every other request.
// A small fixed pool of worker threads doing bcrypt, fed from one queue. Jobs are
// spread over idle workers; when all are busy, they wait their turn in order.
interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Job {
  id: number;
  message: Record<string, unknown>;
}

class HasherPool {
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly pending = new Map<number, Pending>();
  private readonly busy = new Map<Worker, number>();
  private nextId = 1;

  constructor(size: number) {
    for (let index = 0; index < size; index++) this.spawn();
  }

  private spawn(): void {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcryptPath: require.resolve('bcryptjs') } });
    worker.unref();
    let online = false;
    worker.once('online', () => (online = true));
    worker.on('message', (reply: { id: number; result?: unknown; error?: string }) => {
      const job = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      this.busy.delete(worker);
      if (job) {
        if (reply.error) job.reject(new Error(reply.error));
        else job.resolve(reply.result);
      }
      this.release(worker);
    });
    worker.on('error', (error) => {
      logger.error({ err: error.message }, 'password hashing worker failed');
      const jobId = this.busy.get(worker);
      if (jobId !== undefined) this.pending.get(jobId)?.reject(error);
      this.busy.delete(worker);
      this.workers.splice(this.workers.indexOf(worker), 1);
      this.idle.splice(this.idle.indexOf(worker) >>> 0, 1);
      if (online) {
        this.spawn();
      } else {
        // A worker that cannot even start will not start on a retry: fail the waiting jobs.
        for (const job of this.queue.splice(0)) this.pending.get(job.id)?.reject(error);
      }
    });
    this.workers.push(worker);
    this.release(worker);
  }

  private release(worker: Worker): void {
    const job = this.queue.shift();
    if (job) {
      this.busy.set(worker, job.id);
      worker.postMessage({ id: job.id, ...job.message });
    } else {
      this.idle.push(worker);
    }
  }

  run<T>(message: Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      const worker = this.idle.pop();
      if (worker) {
        this.busy.set(worker, id);
        worker.postMessage({ id, ...message });
      } else {
        this.queue.push({ id, message });
      }
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

let pool: HasherPool | undefined;
let settings = { cost: 11, threads: 2 };

export function configureHasher(options: { cost: number; threads: number }): void {
  settings = options;
}

function hasher(): HasherPool {
  pool ??= new HasherPool(settings.threads);
  return pool;
}

export function hashPassword(password: string): Promise<string> {
  return hasher().run<string>({ op: 'hash', password, cost: settings.cost });
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return hasher().run<boolean>({ op: 'verify', password, hash });
}

export async function closeHasher(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.close();
}
