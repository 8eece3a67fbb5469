import { expect } from 'chai';
import pino from 'pino';
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
