// @apart: spawns app processes, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../../lib/paths.js';
import { createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';
import { spawnServer } from '../support/server-process.js';

describe('the start of a cluster (WEB_CONCURRENCY=2)', function () {
  this.timeout(60_000);

  it('stops with exit code 1, without forking again, when its workers cannot listen (port taken)', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    const { url, scratchDir } = testDatabase();
    const server = await spawnServer({ WEB_CONCURRENCY: '2', PORT: String(port), DATABASE_URL: url, DATA_DIR: scratchDir, SESSION_SECRET: 's'.repeat(40) });
    try {
      expect(await server.exited).to.equal(1);
      const output = server.output();
      expect(output).to.include(`Port ${port} on 127.0.0.1 is already in use by another program`);
      expect(output).to.include('a worker could not start: stopping');
      expect(output).not.to.include('server listening');
      expect(output).not.to.include('starting another');
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      blocker.close();
    }
  });

  it('refuses to fork any worker while a migration is pending, naming the command to run', async () => {
    const { adminUrl, scratchDir } = testDatabase();
    const name = `site_cluster_empty_${process.pid}`;
    const url = await createScratchDatabase(adminUrl, name);
    try {
      const server = await spawnServer({ WEB_CONCURRENCY: '2', DATABASE_URL: url, DATA_DIR: scratchDir, SESSION_SECRET: 's'.repeat(40) });
      expect(await server.exited).to.equal(1);
      expect(server.output()).to.include('pending migration(s)');
      expect(server.output()).to.include('npm run migrate');
      expect(server.output()).not.to.include('starting the workers');
    } finally {
      await dropScratchDatabase(adminUrl, name);
    }
  });
});

describe('the generated session secret', function () {
  this.timeout(30_000);

  it('is one secret when several processes start together on an empty data folder', async () => {
    const dataDir = mkdtempSync(path.join(testDatabase().scratchDir, 'secret-race-'));
    const script = `const { loadConfig } = await import('./lib/config.ts'); process.stdout.write(loadConfig().sessionSecret);`;
    const secrets = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
              cwd: projectRoot,
              env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', DATA_DIR: dataDir },
              stdio: ['ignore', 'pipe', 'inherit'],
            });
            let out = '';
            child.stdout.on('data', (chunk) => (out += String(chunk)));
            child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
          }),
      ),
    );
    expect(new Set(secrets).size).to.equal(1);
    expect(secrets[0]).to.match(/^[A-Za-z0-9_-]{64}$/);
    expect(readFileSync(path.join(dataDir, 'session-secret'), 'utf8')).to.equal(`${secrets[0]}\n`);
  });
});
