// bench:start: time from spawning `node dist/app.js` (production settings, a migrated
// database with one public page) to its first 200 on that page, against a bare
// node:http + pg server started the same way (bench/start/baseline-server.mjs), runs
// alternated. The server's own log line «server listening» says where its time went
// (module loading, configuration, database, migration check, cache listener, listen).
//   npm run bench:start -- [--runs 15] [--node /path/to/node]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../../lib/embedded-postgres.js';
import { projectRoot } from '../../lib/paths.js';
import { nodeVersion } from '../pages/servers.js';
import { percentile, siteEnv, table } from '../site.js';
import { option, scratchDatabase } from '../support.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const runs = Number(option('runs', 'BENCH_RUNS', '15'));
const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const SLUG = 'bienvenue';

interface Start {
  ms: number;
  /** CPU time the process had used by then (user + system, /proc on Linux): steadier than wall time on a busy machine. */
  cpuMs?: number;
  /** The phases the server logged («server listening»'s `startup`), when it did. */
  phases?: Record<string, number>;
}

// utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 a second on Linux).
function cpuMsOf(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

function firstAnswer(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: `/${SLUG}`, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    request.on('error', () => resolve(undefined));
  });
}

/** Spawns `args`, asks for the page every 2 ms until a 200, then stops the process. */
async function timeStart(args: string[], env: Record<string, string>): Promise<Start> {
  const port = await freePort();
  let output = '';
  const started = performance.now();
  const child = spawn(nodeBinary, args, {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  let ms: number | undefined;
  while (ms === undefined) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited:\n${output}`);
    if ((await firstAnswer(port)) === 200) ms = performance.now() - started;
    else await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const cpuMs = cpuMsOf(child.pid);
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
  const line = output.split('\n').find((text) => text.includes('"server listening"'));
  const phases = line ? (JSON.parse(line) as { startup?: Record<string, number> }).startup : undefined;
  return { ms, cpuMs, phases };
}

const database = await scratchDatabase('bench-start');
try {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query(`INSERT INTO app_pages (title, slug, blocks) VALUES ('Bienvenue', $1, '[{"type":"paragraph","text":"Une page publique."}]')`, [SLUG]);
  await client.end();
  const build = spawn(process.execPath, ['scripts/build.mjs', '--if-changed'], { cwd: projectRoot, stdio: 'inherit' });
  await new Promise((resolve) => build.once('exit', resolve));

  // INFO: the «server listening» line carries the phases; nothing else is logged per request.
  const appEnv = siteEnv(database.url, database.dataDir, { LOG_LEVEL: 'info' });
  const baseEnv = { DATABASE_URL: database.url };
  const app: Start[] = [];
  const baseline: Start[] = [];
  // One of each first, not counted: the disk cache warm for both.
  await timeStart(['dist/app.js'], appEnv);
  await timeStart([path.join(here, 'baseline-server.mjs')], baseEnv);
  for (let run = 0; run < runs; run++) {
    app.push(await timeStart(['dist/app.js'], appEnv));
    baseline.push(await timeStart([path.join(here, 'baseline-server.mjs')], baseEnv));
  }
  const row = (name: string, starts: Start[]) => {
    const times = starts.map((start) => start.ms);
    const cpu = starts.map((start) => start.cpuMs ?? NaN).filter((value) => !Number.isNaN(value));
    return [
      name,
      percentile(times, 50).toFixed(0),
      Math.min(...times).toFixed(0),
      Math.max(...times).toFixed(0),
      cpu.length ? percentile(cpu, 50).toFixed(0) : '–',
    ];
  };
  const appMedian = percentile(
    app.map((start) => start.ms),
    50,
  );
  const baseMedian = percentile(
    baseline.map((start) => start.ms),
    50,
  );
  console.log(`\nbench:start on ${await nodeVersion(nodeBinary)}, ${runs} runs each, spawn to the first 200 on /${SLUG} (ms)\n`);
  console.log(table(['server', 'p50', 'min', 'max', 'CPU p50'], [row('node dist/app.js', app), row('baseline: node:http + pg', baseline)]));
  console.log(`\nthe app takes ${(appMedian / baseMedian).toFixed(2)}× the baseline's time (${(appMedian - baseMedian).toFixed(0)} ms more)`);
  const phaseNames = [...new Set(app.flatMap((start) => Object.keys(start.phases ?? {})))];
  if (phaseNames.length) {
    console.log("\nwhere the app's time goes, p50 of each phase (ms from the process start, as the server logs it):\n");
    console.log(
      table(
        ['phase', 'p50'],
        phaseNames
          .map((name) => [
            name,
            percentile(
              app.map((start) => start.phases?.[name] ?? NaN).filter((value) => !Number.isNaN(value)),
              50,
            ).toFixed(0),
          ])
          .concat([['first 200 (from the spawn, as above)', appMedian.toFixed(0)]]),
      ),
    );
  }
} finally {
  await database.cleanup();
}
