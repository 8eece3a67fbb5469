// @serial: spawns app processes and asserts durations (run at normal priority, the rest of the suite at nice 19 beside them: npm test, test/support/run.ts)
// The cluster's stop while a worker is being replaced (hardening issue): a worker killed,
// SIGTERM 1.2 s later. Before, the replacement (forked 1 s after the death, still
// starting when the stop began) never heard its stop, was killed after 15 s, and the
// primary exited 1. Now a worker still starting is ended at once (it serves nothing).
import http from 'node:http';
import { expect } from 'chai';
import { testDatabase } from '../support/database.js';
import { keepAliveLoad } from '../support/keep-alive-load.js';
import { spawnServer, waitForListening, type ServerProcess } from '../support/server-process.js';

function logLines(server: ServerProcess): Record<string, unknown>[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function waitForLine(server: ServerProcess, test: (line: Record<string, unknown>) => boolean, timeoutMs = 20_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = logLines(server).find(test);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no such line in time:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function startCluster(): Promise<ServerProcess> {
  const { url, scratchDir } = testDatabase();
  return spawnServer({
    WEB_CONCURRENCY: '2',
    PASSWORD_HASH_THREADS: '2',
    DATABASE_URL: url,
    DATA_DIR: scratchDir,
    SESSION_SECRET: 'y'.repeat(40),
    PASSWORD_HASH_COST: '4',
  });
}

describe('the cluster stopped while a worker is being replaced', function () {
  this.timeout(90_000);

  it('SIGTERM 1.2 s after a worker died: the replacement still starting is ended at once, no request is cut, exit 0 within 5 s', async () => {
    const server = await startCluster();
    try {
      await waitForListening(server, 45_000);
      const [victim] = (await waitForLine(server, (line) => line.msg === 'server listening')).workerPids as number[];
      const load = keepAliveLoad(server.port, 8, [{ method: 'GET', path: '/auth/login' }]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      process.kill(victim, 'SIGKILL');
      const diedAt = Date.now();
      // Young (under 30 s): its replacement is forked 1 s after the death.
      await waitForLine(server, (line) => line.msg === 'worker exited: starting another' && line.workerPid === victim);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1200 - (Date.now() - diedAt))));
      load.signalled();
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      const code = await server.exited;
      const stopMs = Date.now() - signalledAt;
      const tally = await load.stop();

      expect(code, server.output()).to.equal(0);
      expect(stopMs, server.output()).to.be.lessThan(5000);
      // (The SIGKILL itself cut the requests the victim held: that is not the stop's doing.)
      expect(tally.cutAfterSignal).to.deep.equal([]);
      expect([...tally.statuses]).to.deep.equal([200]);
      const lines = logLines(server);
      const replacement = lines.find((line) => line.msg === 'starting a replacement worker');
      expect(replacement, 'the replacement was forked before the stop').not.to.equal(undefined);
      const stopBegan = lines.findIndex((line) => line.msg === 'shutting down: stopping the workers one by one');
      expect(lines.indexOf(replacement!)).to.be.lessThan(stopBegan);
      // Ended at once, not served by: no connection ever reached it, unless it came up in
      // the meantime, and then it stopped as every worker does.
      const pid = replacement!.workerPid;
      if (lines.some((line) => line.msg === 'worker listening' && line.pid === pid)) {
        expect(lines.filter((line) => line.msg === 'stopped' && line.pid === pid)).to.have.length(1);
      }
      expect(lines.slice(stopBegan).filter((line) => line.msg === 'worker replaced')).to.deep.equal([]);
      expect(server.output()).not.to.include('did not stop in time');
      expect(lines.at(-1)).to.include({ primary: true, msg: 'stopped' });
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });

  it('SIGTERM before the replacement is due: no worker is started during the stop, exit 0', async () => {
    const server = await startCluster();
    try {
      await waitForListening(server, 45_000);
      const [victim] = (await waitForLine(server, (line) => line.msg === 'server listening')).workerPids as number[];
      process.kill(victim, 'SIGKILL');
      await waitForLine(server, (line) => line.msg === 'worker exited: starting another' && line.workerPid === victim);
      server.child.kill('SIGTERM');
      expect(await server.exited, server.output()).to.equal(0);
      // The restart was due 1 s after the death; the stop took less, or cancelled it.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(logLines(server).filter((line) => line.msg === 'starting a replacement worker')).to.deep.equal([]);
      expect(server.output()).not.to.include('worker listening", "slot');
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });

  it('SHUTDOWN_DELAY_MS: every worker answers /readyz 503 during the window, held once by the primary', async () => {
    const { url, scratchDir } = testDatabase();
    const server = await spawnServer({
      WEB_CONCURRENCY: '2',
      PASSWORD_HASH_THREADS: '2',
      SHUTDOWN_DELAY_MS: '1500',
      DATABASE_URL: url,
      DATA_DIR: scratchDir,
      SESSION_SECRET: 'y'.repeat(40),
      PASSWORD_HASH_COST: '4',
    });
    try {
      await waitForListening(server, 45_000);
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      await waitForLine(server, (line) => line.primary === true && String(line.msg).includes('until the drain window ends'));
      // Ten new connections: both workers take some, and every one answers 503.
      const statuses = await Promise.all(
        Array.from(
          { length: 10 },
          () =>
            new Promise<number>((resolve, reject) =>
              http
                .get({ host: '127.0.0.1', port: server.port, path: '/readyz', agent: false }, (res) => {
                  res.resume();
                  resolve(res.statusCode ?? 0);
                })
                .on('error', reject),
            ),
        ),
      );
      expect(statuses).to.deep.equal(Array.from({ length: 10 }, () => 503));
      expect(await server.exited, server.output()).to.equal(0);
      const elapsed = Date.now() - signalledAt;
      expect(elapsed).to.be.at.least(1500);
      // Held once, not once per worker: the workers stop without a window of their own.
      expect(elapsed).to.be.lessThan(1500 * 2 + 2500);
      expect(logLines(server).filter((line) => String(line.msg).includes('until the drain window ends'))).to.have.length(1);
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });
});
