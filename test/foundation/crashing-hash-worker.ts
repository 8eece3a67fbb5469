// A task file for the hashing threads that can be told to crash its thread (only the
// password-hasher tests use it, through createPasswordHasher's `workerFile`).
import runHashJob, { type HashJob } from '../../lib/hash-worker.js';

export const CRASH_PASSWORD = 'crash this thread now';

export default function crashingHashJob(job: HashJob): ReturnType<typeof runHashJob> {
  if (job.op !== 'priority' && job.password === CRASH_PASSWORD) process.exit(3);
  return runHashJob(job);
}
