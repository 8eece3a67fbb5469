// Benchmark of several processes on one host (scale issue, item 1): public reads of
// `GET /app/api/pages/by-path` (depth 5, on a small seeded tree) against the real server
// (app.ts, production settings) started with WEB_CONCURRENCY=1, then 2, alternated for
// `--rounds` rounds in one run. Prints requests/s, p50 and p99 of each run and the
// ratio of the medians (target: ≥ 1.4× on two cores once the public read cache exists).
// The load generator runs on the same machine and takes its share of the cores.
//
// Each run also prints the CPU the server (all its processes) and the load generator used,
// as a share of the machine: at these rates the generator needs a large part of a core,
// which two workers then cannot have. --pipelining N (autocannon's option, the same for
// both setups) lowers the generator's cost per request.
//
//   npm run bench:cluster -- [--node <path>] [--duration 10] [--connections 10] [--rounds 2] [--pages 2000] [--pipelining 1]
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../../lib/embedded-postgres.js';
import { projectRoot } from '../../lib/paths.js';
import { seedPageTree } from '../pages/seed.js';
import { nodeVersion } from '../pages/servers.js';
import { option, scratchDatabase } from '../support.js';

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const duration = Number(option('duration', 'BENCH_DURATION', '10'));
const connections = Number(option('connections', 'BENCH_CONNECTIONS', '10'));
const rounds = Number(option('rounds', 'BENCH_ROUNDS', '2'));
const totalPages = Number(option('pages', 'BENCH_PAGES', '2000'));
const pipelining = Number(option('pipelining', 'BENCH_PIPELINING', '1'));
const cores = os.availableParallelism();

interface Measure {
  processes: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU used during the measured run, in % of the whole machine (100 % = every core). */
  serverCpu: number;
  clientCpu: number;
}

/** CPU seconds used so far by a process and its children (/proc, Linux; clock ticks at 100 Hz). */
function cpuSeconds(pid: number): number {
  const ticks = (of: number) => {
    try {
      const fields = readFileSync(`/proc/${of}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  };
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // no children listed
  }
  return (ticks(pid) + children.reduce((sum, child) => sum + ticks(child), 0)) / 100;
}

/** The site with WEB_CONCURRENCY=`processes`, its log in a file; resolves once every worker listens. */
async function startSite(processes: number, env: Record<string, string>, logFile: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const fd = openSync(logFile, 'w');
  const child = spawn(nodeBinary, ['--import', 'tsx', path.join(projectRoot, 'app.ts')], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), WEB_CONCURRENCY: String(processes) },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const deadline = Date.now() + 90_000;
  while (!readFileSync(logFile, 'utf8').includes('"msg":"server listening"')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the site did not start:\n${readFileSync(logFile, 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, port };
}

async function stopSite(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function measure(processes: number, url: string, serverPid: number): Promise<Measure> {
  // Warm-up (JIT, pools, PostgreSQL's buffers, the cache when there is one), then the measured run.
  await autocannon({ url, connections, pipelining, duration: 2 });
  const server = cpuSeconds(serverPid);
  const client = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({ url, connections, pipelining, duration });
  const wall = (performance.now() - started) / 1000;
  const clientUsed = process.cpuUsage(client);
  const share = (seconds: number) => (100 * seconds) / (wall * cores);
  return {
    processes,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    serverCpu: share(cpuSeconds(serverPid) - server),
    clientCpu: share((clientUsed.user + clientUsed.system) / 1e6),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function main(): Promise<void> {
  console.log(
    `site on Node ${await nodeVersion(nodeBinary)}, ${os.availableParallelism()} CPU cores; autocannon ${connections} connections (pipelining ${pipelining}), ${duration} s per run (after 2 s of warm-up), ${rounds} round(s) of WEB_CONCURRENCY=1 then 2`,
  );
  const database = await scratchDatabase('cluster-bench');
  const children: ChildProcess[] = [];
  try {
    const tree = await seedPageTree(database.url, totalPages);
    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      HOST: '127.0.0.1',
      SESSION_SECRET: 'bench-session-secret-0123456789-0123456789',
      BASE_URL: 'http://bench.local',
      MAIL_OUTBOX: 'true',
      LOG_LEVEL: 'info',
    };
    const logFile = path.join(os.tmpdir(), `cluster-bench-${process.pid}.log`);
    const results: Measure[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const processes of [1, 2]) {
        const site = await startSite(processes, env, logFile);
        children.push(site.child);
        results.push(await measure(processes, `http://127.0.0.1:${site.port}/app/api/pages/by-path?path=${tree.paths[5]}`, site.child.pid!));
        await stopSite(site.child);
      }
    }

    console.log('\nprocesses  req/s     p50 ms  p99 ms  errors  non-2xx  server CPU  generator CPU');
    for (const m of results) {
      console.log(
        `${String(m.processes).padStart(9)}  ${m.rps.toFixed(0).padStart(7)}  ${String(m.p50).padStart(6)}  ${String(m.p99).padStart(6)}  ${String(m.errors).padStart(6)}  ${String(m.non2xx).padStart(7)}` +
          `  ${m.serverCpu.toFixed(0).padStart(8)} %  ${m.clientCpu.toFixed(0).padStart(11)} %`,
      );
    }
    const one = median(results.filter((m) => m.processes === 1).map((m) => m.rps));
    const two = median(results.filter((m) => m.processes === 2).map((m) => m.rps));
    console.log(
      `\nby-path depth 5, median req/s: 1 process ${one.toFixed(0)}, 2 processes ${two.toFixed(0)}: ratio ${(two / one).toFixed(2)}× (target ≥ 1.4× on 2 cores)`,
    );
  } finally {
    for (const child of children) await stopSite(child);
    await database.cleanup();
  }
}

await main();
