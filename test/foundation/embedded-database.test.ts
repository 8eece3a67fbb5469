// @apart: starts PostgreSQL clusters, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
// The zero-setup database is one cluster per data folder: a second server started on
// the same folder must say so in one line and exit, not print a stack trace.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../../lib/paths.js';
import { bundledEntryArgs } from '../support/server-bundle.js';
import { spawnServer, waitForListening } from '../support/server-process.js';

describe('embedded database shared by two servers on one data folder', () => {
  let dataDir: string;
  before(async function () {
    this.timeout(120_000);
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'site-embedded-'));
    // When run as root, PostgreSQL runs as the postgres user, who must reach the folder.
    chmodSync(dataDir, 0o755);
    const migrate = spawnSync(process.execPath, [...(await bundledEntryArgs('migrate')), 'latest'], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    expect(migrate.status, migrate.stdout + migrate.stderr).to.equal(0);
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses the second start in one line naming the other process, and the first keeps serving', async function () {
    this.timeout(120_000);
    const env = { DATA_DIR: dataDir, SESSION_SECRET: 'z'.repeat(40), PASSWORD_HASH_COST: '4', LOG_LEVEL: 'info' };
    const first = await spawnServer(env);
    try {
      await waitForListening(first, 60_000);
      const second = await spawnServer(env);
      expect(await second.exited, second.output()).to.equal(1);
      const lines = second
        .output()
        .split('\n')
        .filter((line) => line.includes('already in use by another process'));
      expect(lines, second.output()).to.have.length(1);
      expect(second.output()).to.not.match(/\bat .*\.(ts|js):\d+/);
      expect((await fetch(`http://127.0.0.1:${first.port}/auth`)).status).to.equal(200);
    } finally {
      first.child.kill('SIGTERM');
      expect(await first.exited).to.equal(0);
    }
  });
});
