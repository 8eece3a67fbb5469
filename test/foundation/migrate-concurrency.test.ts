// @apart: spawns twenty migrating processes, two at a time, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
// Two instances started at once on a fresh database (two `npm start`) both run
// `scripts/migrate.ts latest`. Without the advisory lock, knex's own creation of its
// bookkeeping tables races: one process failed about one time in five, and
// knex_migrations_lock could stay locked.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { MigrationSource } from '../../lib/migrations.js';
import { projectRoot } from '../../lib/paths.js';
import { siteMigrationDirectories } from '../../routes/site-modules.js';
import { createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';
import { scratchKnex } from '../support/schema-snapshot.js';
import { bundledEntryArgs } from '../support/server-bundle.js';

const TRIALS = 10;

interface Run {
  code: number | null;
  output: string;
}

/**
 * `npm run migrate` (scripts/migrate.ts latest, bundled once for the test process:
 * server-bundle.ts), or with `knexCli` `npx knex migrate:latest` as an operator types it.
 */
async function runMigrate(databaseUrl: string, { knexCli = false, onOutput }: { knexCli?: boolean; onOutput?: (text: string) => void } = {}): Promise<Run> {
  const args = knexCli ? [path.join(projectRoot, 'node_modules', '.bin', 'knex'), 'migrate:latest'] : [...(await bundledEntryArgs('migrate')), 'latest'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: projectRoot,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        DATABASE_URL: databaseUrl,
        DATA_DIR: testDatabase().scratchDir,
        SESSION_SECRET: 'x'.repeat(40),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const add = (chunk: Buffer) => {
      output += chunk.toString();
      onOutput?.(output);
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('migrate latest started by two processes at once', function () {
  this.timeout(300_000);

  it(`succeeds in both, records each migration once and leaves the lock free (${TRIALS} fresh databases)`, async () => {
    const source = new MigrationSource(siteMigrationDirectories());
    const expected = (await source.getMigrations()).map((file) => source.getMigrationName(file));
    const { adminUrl } = testDatabase();
    for (let trial = 0; trial < TRIALS; trial++) {
      const name = `site_migrate_race_${process.pid}_${trial}`;
      const url = await createScratchDatabase(adminUrl, name);
      const knex = scratchKnex(url);
      try {
        const runs = await Promise.all([runMigrate(url), runMigrate(url)]);
        for (const run of runs) expect(run.code, `trial ${trial}:\n${run.output}`).to.equal(0);
        const recorded = await knex('knex_migrations').orderBy('id').pluck('name');
        expect(recorded, `trial ${trial}`).to.deep.equal(expected);
        const locks = await knex('knex_migrations_lock').select('is_locked');
        expect(locks, `trial ${trial}: knex_migrations_lock`).to.deep.equal([{ is_locked: 0 }]);
      } finally {
        await knex.destroy();
        await dropScratchDatabase(adminUrl, name);
      }
    }
  });
});

// The knex CLI runs knex's migrator itself (knexfile.js), which creates its bookkeeping
// tables in the same instant it lists the files: two started together ended one with a
// raw `duplicate key … pg_type_typname_nsp_index` 5 times in 6.
describe('npx knex migrate:latest beside another migration', function () {
  this.timeout(300_000);
  const LOCK_KEY = '4287391022517601';

  async function withScratch(name: string, work: (url: string) => Promise<void>): Promise<void> {
    const { adminUrl } = testDatabase();
    const url = await createScratchDatabase(adminUrl, name);
    try {
      await work(url);
    } finally {
      await dropScratchDatabase(adminUrl, name);
    }
  }

  it('waits, saying so in one line, while another process holds the migration lock, then migrates', async () => {
    await withScratch(`site_knex_wait_${process.pid}`, async (url) => {
      // Another migration in progress: `npm run migrate` holds this lock while it runs.
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      const knex = scratchKnex(url);
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
        let saidWaiting!: () => void;
        const waiting = new Promise<void>((resolve) => (saidWaiting = resolve));
        const cli = runMigrate(url, { knexCli: true, onOutput: (text) => text.includes('Another process is migrating this database') && saidWaiting() });
        await Promise.race([waiting, cli.then((run) => Promise.reject(new Error(`exited without waiting:\n${run.output}`)))]);
        // It waits: nothing written, not even knex's bookkeeping tables.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(await knex.schema.hasTable('knex_migrations')).to.equal(false);
        await holder.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
        const run = await cli;
        expect(run.code, run.output).to.equal(0);
        expect(run.output.match(/Another process is migrating/g)).to.have.length(1);
        const source = new MigrationSource(siteMigrationDirectories());
        const expected = (await source.getMigrations()).map((file) => source.getMigrationName(file));
        expect(await knex('knex_migrations').orderBy('id').pluck('name')).to.deep.equal(expected);
      } finally {
        await holder.end();
        await knex.destroy();
      }
    });
  });

  it('two started at once on a fresh database: both exit 0, each migration recorded once (3 databases)', async () => {
    const source = new MigrationSource(siteMigrationDirectories());
    const expected = (await source.getMigrations()).map((file) => source.getMigrationName(file));
    for (let trial = 0; trial < 3; trial++) {
      await withScratch(`site_knex_race_${process.pid}_${trial}`, async (url) => {
        const knex = scratchKnex(url);
        try {
          const runs = await Promise.all([runMigrate(url, { knexCli: true }), runMigrate(url, { knexCli: true })]);
          for (const run of runs) {
            expect(run.code, `trial ${trial}:\n${run.output}`).to.equal(0);
            expect(run.output).not.to.include('duplicate key');
          }
          expect(await knex('knex_migrations').orderBy('id').pluck('name'), `trial ${trial}`).to.deep.equal(expected);
        } finally {
          await knex.destroy();
        }
      });
    }
  });
});
