// The task of the password-hashing threads (lib/password-hasher.ts runs it through
// piscina): bcrypt costs ~100 ms of CPU per hash at cost 11, which on the main thread
// would stall every other request during a burst of logins.
import bcrypt from 'bcryptjs';

export type HashJob = { op: 'hash'; password: string; cost: number } | { op: 'verify'; password: string; hash: string };

export default function runHashJob(job: HashJob): string | boolean {
  return job.op === 'hash' ? bcrypt.hashSync(job.password, job.cost) : bcrypt.compareSync(job.password, job.hash);
}
