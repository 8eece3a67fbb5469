// @heavy: builds the project and starts it, times nothing (started first among the parallel files: npm test, test/support/run.ts)
// The built project as an operator runs it on a VPS: `npm run build`, then the knex CLI
// as typed from the project root with DATABASE_URL only (no NODE_OPTIONS, no
// SESSION_SECRET), and `npm start`'s build step skipped when nothing changed.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createKnex } from '../../lib/db.js';
import { createLogger } from '../../lib/logger.js';
import { migrationStatus } from '../../lib/migrations.js';
import { siteMigrationDirectories } from '../../routes/site-modules.js';
import { projectRoot } from '../../lib/paths.js';
import { createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';

interface Run {
  code: number | null;
  output: string;
}

/** Runs a command from the project root (or `cwd`) with exactly this environment (PATH and HOME added). */
function run(command: string, args: string[], env: Record<string, string>, cwd = projectRoot): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('the built project', function () {
  this.timeout(60_000);
  const name = `site_ops_knex_cli_${process.pid}`;
  const secretFile = path.join(projectRoot, 'data', 'session-secret');
  let url: string;
  let scratch: string;
  let secretBefore: number | undefined;

  before(async function () {
    this.timeout(600_000);
    const build = await run('npm', ['run', 'build'], {});
    expect(build.code, build.output).to.equal(0);
    url = await createScratchDatabase(testDatabase().adminUrl, name);
    scratch = mkdtempSync(path.join(os.tmpdir(), 'site-knex-cli-'));
    secretBefore = existsSync(secretFile) ? statSync(secretFile).mtimeMs : undefined;
  });
  after(async () => {
    await dropScratchDatabase(testDatabase().adminUrl, name);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('migrates with `npx knex migrate:latest` as typed, in production without SESSION_SECRET, writing no secret', async () => {
    const latest = await run('npx', ['knex', 'migrate:latest'], { DATABASE_URL: url, NODE_ENV: 'production' });
    expect(latest.code, latest.output).to.equal(0);
    expect(latest.output).to.match(/Batch 1 run: \d+ migrations/);

    const knex = createKnex(url, { poolMax: 1, logger: createLogger('warn') });
    try {
      for (const table of ['app_auth_users', 'app_auth_sessions', 'app_pages', 'knex_migrations'])
        expect(await knex.schema.hasTable(table), table).to.equal(true);
      // The compiled migrations recorded the same names the TypeScript sources know: one history.
      const status = await migrationStatus(knex, { directories: siteMigrationDirectories() });
      expect(status.pending).to.deep.equal([]);
      expect(status.unknown).to.deep.equal([]);
    } finally {
      await knex.destroy();
    }
    expect(existsSync(secretFile) ? statSync(secretFile).mtimeMs : undefined).to.equal(secretBefore);
  });

  it('lists with `npx knex migrate:status` and undoes with `npx knex migrate:rollback`, writing no secret in development either', async () => {
    const env = { DATABASE_URL: url, DATA_DIR: scratch };
    const status = await run('npx', ['knex', 'migrate:status'], env);
    expect(status.code, status.output).to.equal(0);
    expect(status.output).to.include('No Pending Migration files Found.');
    const rollback = await run('npx', ['knex', 'migrate:rollback'], env);
    expect(rollback.code, rollback.output).to.equal(0);
    expect(rollback.output).to.match(/Batch 1 rolled back: \d+ migrations/);
    expect(existsSync(path.join(scratch, 'session-secret'))).to.equal(false);
  });

  it('migrates with `npx knex migrate:latest` from knexfile.ts through tsx, never from a stale dist/', async () => {
    const checkout = path.join(scratch, 'checkout');
    const skipped = new Set(['dist', 'node_modules', 'data', 'test-artifacts', '.git', 'test', 'docs', 'bench']);
    cpSync(projectRoot, checkout, { recursive: true, filter: (source) => !skipped.has(path.relative(projectRoot, source).split(path.sep)[0]) });
    symlinkSync(path.join(projectRoot, 'node_modules'), path.join(checkout, 'node_modules'));
    // A build older than the sources: loading it would fail the command.
    mkdirSync(path.join(checkout, 'dist'));
    writeFileSync(path.join(checkout, 'dist', 'knexfile.js'), "throw new Error('the stale dist/knexfile.js was loaded');\n");
    const unbuiltName = `${name}_unbuilt`;
    const unbuiltUrl = await createScratchDatabase(testDatabase().adminUrl, unbuiltName);
    try {
      const latest = await run('npx', ['knex', 'migrate:latest'], { DATABASE_URL: unbuiltUrl, DATA_DIR: scratch }, checkout);
      expect(latest.code, latest.output).to.equal(0);
      expect(latest.output).to.not.contain('stale');
      const knex = createKnex(unbuiltUrl, { poolMax: 1, logger: createLogger('warn') });
      try {
        expect(await knex.schema.hasTable('app_pages')).to.equal(true);
        const status = await migrationStatus(knex, { directories: siteMigrationDirectories() });
        expect(status.pending).to.deep.equal([]);
        expect(status.unknown).to.deep.equal([]);
      } finally {
        await knex.destroy();
      }
    } finally {
      await dropScratchDatabase(testDatabase().adminUrl, unbuiltName);
    }
  });

  it('says what is missing when DATABASE_URL is not set', async () => {
    const missing = await run('npx', ['knex', 'migrate:latest'], { NODE_ENV: 'production' });
    expect(missing.code).to.not.equal(0);
    expect(missing.output).to.include('DATABASE_URL is not set');
  });

  it('skips the build of `npm start` when no source changed since the last one', async () => {
    const compiled = path.join(projectRoot, 'dist', 'app.js');
    const before = statSync(compiled).mtimeMs;
    const again = await run(process.execPath, ['scripts/build.mjs', '--if-changed'], {});
    expect(again.code, again.output).to.equal(0);
    expect(again.output).to.include('no source changed since the last build');
    expect(statSync(compiled).mtimeMs).to.equal(before);
  });
});
