// @serial: reads the priority of its hashing threads against its own, which must be under 10 (the lanes that time nothing run at nice 19): run at normal priority (npm test, test/support/run.ts)
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { expect } from 'chai';
import pino from 'pino';
import { defaultHashThreads, loadConfig } from '../../lib/config.js';
import { createPasswordHasher, type PasswordHasher } from '../../lib/password-hasher.js';
import { CRASH_PASSWORD } from './crashing-hash-worker.js';

const logger = pino({ level: 'silent' });
const crashingWorker = new URL('./crashing-hash-worker.ts', import.meta.url);

describe('password hasher (lib/password-hasher.ts)', () => {
  let hasher: PasswordHasher;
  afterEach(async () => {
    await hasher?.close();
  });

  it('hashes with bcrypt at the configured cost and verifies', async () => {
    hasher = createPasswordHasher({ cost: 4, threads: 2, logger });
    const hash = await hasher.hash('correct horse battery');
    expect(hash).to.match(/^\$2[aby]\$04\$/);
    expect(await hasher.verify('correct horse battery', hash)).to.equal(true);
    expect(await hasher.verify('wrong horse battery', hash)).to.equal(false);
  });

  it('runs more jobs than threads, all of them answered', async () => {
    hasher = createPasswordHasher({ cost: 4, threads: 2, logger });
    const passwords = Array.from({ length: 9 }, (_, index) => `password number ${index}`);
    const hashes = await Promise.all(passwords.map((password) => hasher.hash(password)));
    const checks = await Promise.all(passwords.map((password, index) => hasher.verify(password, hashes[(index + 1) % hashes.length])));
    expect(checks).to.deep.equal(passwords.map(() => false));
    expect(await Promise.all(passwords.map((password, index) => hasher.verify(password, hashes[index])))).to.deep.equal(passwords.map(() => true));
  });

  it('answers queued jobs in the order they were asked (a login is never overtaken by later ones)', async () => {
    hasher = createPasswordHasher({ cost: 4, threads: 1, logger });
    await hasher.hash('thread started');
    // Twelve jobs queued at once behind one thread: each completion must start the oldest.
    const finished: number[] = [];
    await Promise.all(Array.from({ length: 12 }, (_, index) => hasher.hash(`job ${index}`).then(() => finished.push(index))));
    expect(finished).to.deep.equal(Array.from({ length: 12 }, (_, index) => index));
  });

  it('keeps every wait within the queue ahead of it under a steady flood of jobs', async () => {
    hasher = createPasswordHasher({ cost: 6, threads: 1, logger });
    const hash = await hasher.hash('flood');
    // Eight clients resubmitting at once for 150 jobs: no job may wait behind more than the
    // seven others in flight (each one overtaken would wait a full extra turn).
    let turn = 0;
    let worstOvertaken = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let round = 0; round < 19; round++) {
          const asked = turn;
          await hasher.verify('flood', hash);
          const startedAfter = turn++ - asked;
          worstOvertaken = Math.max(worstOvertaken, startedAfter);
        }
      }),
    );
    expect(turn).to.equal(152);
    expect(worstOvertaken).to.be.at.most(8);
  });

  it('closes without ever having started, and starts again after close()', async () => {
    hasher = createPasswordHasher({ cost: 4, threads: 1, logger });
    await hasher.close();
    const hash = await hasher.hash('used after close');
    await hasher.close();
    expect(await hasher.verify('used after close', hash)).to.equal(true);
  });

  it('fails the job of a thread that crashes, and keeps serving the jobs after it', async () => {
    hasher = createPasswordHasher({ cost: 4, threads: 1, logger, workerFile: crashingWorker });
    const before = await hasher.hash('before the crash');
    // Queued behind the crashing job on the only thread: it must run on the replacement.
    const [crashed, queued] = await Promise.allSettled([hasher.hash(CRASH_PASSWORD), hasher.hash('queued behind the crash')]);
    expect(crashed.status).to.equal('rejected');
    expect((crashed as PromiseRejectedResult).reason.message).to.match(/exited with code: 3/);
    expect(queued.status).to.equal('fulfilled');
    expect(await hasher.verify('queued behind the crash', (queued as PromiseFulfilledResult<string>).value)).to.equal(true);
    expect(await hasher.verify('before the crash', before)).to.equal(true);
    // A second crash is handled the same way (the replacement thread is a full member).
    await hasher.verify(CRASH_PASSWORD, before).then(
      () => expect.fail('the crashed job resolved'),
      (error: Error) => expect(error.message).to.match(/exited with code: 3/),
    );
    expect(await hasher.verify('before the crash', before)).to.equal(true);
  });
});

/** The nice value of each thread of this process, read from /proc/self/task/<tid>/stat (field 19). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command name (in parentheses, which may hold spaces): state is field 3, nice field 19.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      nices.set(Number(tid), Number(fields[16]));
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return nices;
}

async function nicedThreads(nice: number, expected: number): Promise<number[]> {
  // The threads renice themselves while they start: wait for them, without a time limit of our own.
  for (;;) {
    const niced = [...threadNices()].filter(([, value]) => value === nice).map(([tid]) => tid);
    if (niced.length >= expected) return niced;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('password hashing threads: priority and count', function () {
  let hasher: PasswordHasher | undefined;
  afterEach(async () => {
    await hasher?.close();
    hasher = undefined;
  });
  before(function () {
    // Only Linux lets a thread renice itself alone; a run already at nice 10 or more could not tell the threads apart.
    if (process.platform !== 'linux' || os.getPriority() >= 10) this.skip();
  });

  it('lowers the priority of each hashing thread to the nice value, and of no other thread', async () => {
    const before = threadNices();
    const own = os.getPriority();
    expect(before.get(process.pid), 'the main thread').to.equal(own);
    hasher = createPasswordHasher({ cost: 4, threads: 3, nice: 19, logger });
    const hash = await hasher.hash('niced thread');
    expect(await hasher.verify('niced thread', hash)).to.equal(true);

    const niced = await nicedThreads(19, 3);
    expect(niced).to.have.length(3);
    expect(niced).not.to.include(process.pid);
    for (const tid of niced) expect(before.has(tid), `thread ${tid} is new`).to.equal(false);
    expect(threadNices().get(process.pid), 'the main thread after').to.equal(own);
    // Every other thread of the process (libuv, V8, the test's own) kept its priority.
    expect([...threadNices()].filter(([, value]) => value !== own && value !== 19)).to.deep.equal([]);
  });

  it('leaves the threads at the process priority with nice 0', async () => {
    hasher = createPasswordHasher({ cost: 4, threads: 2, nice: 0, logger });
    await hasher.hash('not niced');
    expect([...threadNices().values()].filter((value) => value !== os.getPriority())).to.deep.equal([]);
  });

  it('gives the threads a nice value of 10 when told so, and the pool goes on hashing', async () => {
    hasher = createPasswordHasher({ cost: 4, threads: 2, nice: 10, logger });
    const hashes = await Promise.all(['a first', 'a second', 'a third'].map((password) => hasher!.hash(password)));
    expect(await hasher.verify('a third', hashes[2])).to.equal(true);
    expect(await nicedThreads(10, 2)).to.have.length(2);
  });
});

describe('password hashing settings', () => {
  const base = { NODE_ENV: 'test', SESSION_SECRET: 'x'.repeat(40) };

  it('defaults to one niced thread per core on Linux, cores − 1 without niced threads, 1 to 4', () => {
    expect([1, 2, 3, 4, 8, 64].map((cores) => defaultHashThreads(19, cores, 'linux'))).to.deep.equal([1, 2, 3, 4, 4, 4]);
    expect([1, 2, 3, 4, 8].map((cores) => defaultHashThreads(0, cores, 'linux'))).to.deep.equal([1, 1, 2, 3, 4]);
    expect([1, 2, 3, 8].map((cores) => defaultHashThreads(19, cores, 'darwin'))).to.deep.equal([1, 1, 2, 4]);
  });

  it('reads PASSWORD_HASH_NICE (default 19) and derives the default thread count from it', () => {
    const defaults = loadConfig(base);
    expect(defaults.passwordHashNice).to.equal(19);
    expect(defaults.passwordHashThreads).to.equal(defaultHashThreads(19, os.availableParallelism()));
    const plain = loadConfig({ ...base, PASSWORD_HASH_NICE: '0' });
    expect(plain).to.include({ passwordHashNice: 0, passwordHashThreads: defaultHashThreads(0, os.availableParallelism()) });
    expect(loadConfig({ ...base, PASSWORD_HASH_NICE: '5', PASSWORD_HASH_THREADS: '3' })).to.include({ passwordHashNice: 5, passwordHashThreads: 3 });
  });

  it('stops the start naming PASSWORD_HASH_NICE outside 0 to 19', () => {
    for (const value of ['-1', '20', '2.5', 'low']) {
      expect(() => loadConfig({ ...base, PASSWORD_HASH_NICE: value }), value).to.throw(/"PASSWORD_HASH_NICE"/);
    }
  });
});
