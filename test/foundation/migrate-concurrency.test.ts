// Two instances started at once on a fresh database (two `npm start`) both run
// `scripts/migrate.ts latest`. Without the advisory lock, knex's own creation of its
// bookkeeping tables races: one process failed about one time in five, and
// knex_migrations_lock could stay locked.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { MigrationSource } from '../../lib/migrations.js';
import { projectRoot } from '../../lib/paths.js';
import { createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';
import { scratchKnex } from '../support/schema-snapshot.js';

const TRIALS = 10;

interface Run {
  code: number | null;
  output: string;
}

function runMigrate(databaseUrl: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'scripts', 'migrate.ts'), 'latest'], {
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
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('migrate latest started by two processes at once', function () {
  this.timeout(120_000);

  it(`succeeds in both, records each migration once and leaves the lock free (${TRIALS} fresh databases)`, async () => {
    const source = new MigrationSource();
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
