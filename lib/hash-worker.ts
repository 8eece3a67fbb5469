// The task of the password-hashing threads (lib/password-hasher.ts runs it through
// piscina): bcrypt costs 100–200 ms of CPU per hash at cost 11, which on the main thread
// would stall every other request during a burst of logins.
//
// On Linux each thread lowers its own scheduling priority when it loads (the `nice`
// piscina hands over as workerData): the event loop then takes the CPU back from a hash
// within a scheduler tick whenever a request arrives, so the threads may use every core
// without delaying requests. setpriority(2) on a thread id changes that thread alone on
// Linux; the id comes from /proc/thread-self, a link to /proc/<pid>/task/<tid>.
// Lowering one's priority needs no privilege; nothing here ever raises it.
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { workerData } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

export type HashJob = { op: 'hash'; password: string; cost: number } | { op: 'verify'; password: string; hash: string } | { op: 'priority' };

/** What a thread says of its priority (the `priority` job): its OS thread id and nice value, or why it could not lower it. */
export interface ThreadPriority {
  tid: number | undefined;
  nice: number | undefined;
  error: string | undefined;
}

export interface HashWorkerData {
  /** The nice value the thread sets for itself (0: left as it is). */
  nice: number;
}

function lowerPriority(wanted: number): ThreadPriority {
  let tid: number | undefined;
  try {
    tid = Number(/\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1]);
    if (!Number.isInteger(tid) || tid <= 0) throw new Error('/proc/thread-self names no thread');
    // Never raise it: a process started under `nice` keeps at least its own niceness.
    const current = os.getPriority(tid);
    if (wanted > current) os.setPriority(tid, wanted);
    return { tid, nice: os.getPriority(tid), error: undefined };
  } catch (error) {
    return { tid, nice: undefined, error: (error as Error).message };
  }
}

const wantedNice = (workerData as HashWorkerData | undefined)?.nice ?? 0;
const priority: ThreadPriority =
  wantedNice > 0 && process.platform === 'linux' ? lowerPriority(wantedNice) : { tid: undefined, nice: undefined, error: undefined };

export default function runHashJob(job: HashJob): string | boolean | ThreadPriority {
  if (job.op === 'priority') return priority;
  return job.op === 'hash' ? bcrypt.hashSync(job.password, job.cost) : bcrypt.compareSync(job.password, job.hash);
}
