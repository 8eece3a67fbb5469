// Benchmark of a stop under keep-alive load (hardening issue): N clients send GET /auth
// without pause over keep-alive sockets; SIGTERM lands after `--before` seconds. Rows:
// a baseline (a bare node:http server stopped with server.close() alone), the site as
// one process with 16 and with 50 clients, and the site as two workers
// (WEB_CONCURRENCY=2) with 50 clients, each `--rounds` times. The headline figure is
// the requests cut: every request that reached the server and got no whole answer —
// an answer begun and broken, or a reset after the request was sent (on a kept-alive
// socket, or on a new connection still in the accept backlog). A refused connection
// (ECONNREFUSED: the listening socket was closed) never reached it, and the client may
// go elsewhere. Beside it: the exit code, the time from the signal to the exit, the
// requests answered (after the signal). Target for the site: exit 0 and 0 cut.
//
//   npm run bench:shutdown -- [--node <path to a node binary>] [--rounds 3] [--before 2]
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../lib/embedded-postgres.js';
import { projectRoot } from '../../lib/paths.js';
import { option, scratchDatabase } from '../support.js';

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const rounds = Number(option('rounds', 'BENCH_ROUNDS', '3'));
const beforeSeconds = Number(option('before', 'BENCH_BEFORE', '2'));

interface Trial {
  exitCode: number | null;
  stopMs: number;
  answered: number;
  answeredAfterSignal: number;
  /** An answer had begun, then broke. */
  broken: number;
  /** Reset (or closed) after the request was sent on a kept-alive socket. */
  resetReused: number;
  /** Reset after the request was sent on a new connection (the accept backlog). */
  resetNew: number;
  refused: number;
}

const cutOf = (trial: Trial) => trial.broken + trial.resetReused + trial.resetNew;

function spawnProcess(script: string, env: Record<string, string>): { child: ChildProcess; output(): string } {
  let output = '';
  const child = spawn(nodeBinary, ['--import', 'tsx', path.join(projectRoot, script)], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

async function waitForListening(server: { child: ChildProcess; output(): string }, port: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${server.output()}`);
    const up = await fetch(`http://127.0.0.1:${port}/auth`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function trial(script: string, env: Record<string, string>, connections: number): Promise<Trial> {
  const port = await freePort();
  const server = spawnProcess(script, { ...env, PORT: String(port) });
  await waitForListening(server, port);
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const result: Trial = { exitCode: null, stopMs: 0, answered: 0, answeredAfterSignal: 0, broken: 0, resetReused: 0, resetNew: 0, refused: 0 };
  let signalledAt = 0;
  let running = true;
  const get = () =>
    new Promise<void>((resolve) => {
      let answered = false;
      const req = http.get({ host: '127.0.0.1', port, path: '/auth', agent }, (res) => {
        answered = true;
        res.resume();
        res.on('end', () => {
          result.answered++;
          if (signalledAt) result.answeredAfterSignal++;
          resolve();
        });
        res.on('error', () => {
          result.broken++;
          resolve();
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (answered) result.broken++;
        else if (error.code === 'ECONNREFUSED') result.refused++;
        else if (req.reusedSocket) result.resetReused++;
        else result.resetNew++;
        resolve();
      });
    });
  const clients = Array.from({ length: connections }, async () => {
    while (running) await get();
  });
  await new Promise((resolve) => setTimeout(resolve, beforeSeconds * 1000));
  signalledAt = Date.now();
  server.child.kill('SIGTERM');
  result.exitCode = await exited;
  result.stopMs = Date.now() - signalledAt;
  running = false;
  await Promise.all(clients);
  agent.destroy();
  return result;
}

interface Row {
  name: string;
  script: string;
  env: Record<string, string>;
  connections: number;
  site: boolean;
}

const sum = (trials: Trial[], pick: (trial: Trial) => number) => trials.reduce((total, each) => total + pick(each), 0);

async function main(): Promise<void> {
  const database = await scratchDatabase('bench-shutdown');
  try {
    const siteEnv = {
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      HOST: '127.0.0.1',
      SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-0123456789',
      BASE_URL: 'http://bench.local',
      MAIL_OUTBOX: 'true',
      LOG_LEVEL: 'warn',
    };
    const rows: Row[] = [
      { name: 'baseline: bare node:http, server.close()', script: 'bench/shutdown/naive-server.ts', env: {}, connections: 50, site: false },
      { name: 'site, one process', script: 'app.ts', env: siteEnv, connections: 16, site: true },
      { name: 'site, one process', script: 'app.ts', env: siteEnv, connections: 50, site: true },
      { name: 'site, WEB_CONCURRENCY=2', script: 'app.ts', env: { ...siteEnv, WEB_CONCURRENCY: '2', PASSWORD_HASH_THREADS: '2' }, connections: 50, site: true },
    ];
    const results: { row: Row; trials: Trial[] }[] = [];
    for (const row of rows) {
      const trials: Trial[] = [];
      for (let round = 0; round < rounds; round++) trials.push(await trial(row.script, row.env, row.connections));
      results.push({ row, trials });
    }
    console.log(
      `\nSIGTERM under keep-alive load: signal after ${beforeSeconds} s, ${rounds} rounds per row (sums; stop time: min–max), Node ${process.version} driver, server under ${nodeBinary}\n`,
    );
    console.log(
      '| server | clients | requests cut | exit codes | stop time | answered (after signal) | answer broken | reset after sending: kept-alive / new | refused |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const { row, trials } of results) {
      const stops = trials.map((each) => each.stopMs);
      console.log(
        `| ${row.name} | ${row.connections} | **${sum(trials, cutOf)}** | ${[...new Set(trials.map((each) => each.exitCode))].join(', ')} | ${Math.min(...stops)}–${Math.max(...stops)} ms | ` +
          `${sum(trials, (each) => each.answered)} (${sum(trials, (each) => each.answeredAfterSignal)}) | ${sum(trials, (each) => each.broken)} | ` +
          `${sum(trials, (each) => each.resetReused)} / ${sum(trials, (each) => each.resetNew)} | ${sum(trials, (each) => each.refused)} |`,
      );
    }
    const site = results.filter(({ row }) => row.site).flatMap(({ trials }) => trials);
    const ok = site.every((each) => each.exitCode === 0 && cutOf(each) === 0);
    console.log(`\nsite target (exit 0, 0 requests cut, every row and round): ${ok ? 'met' : 'NOT met'}`);
  } finally {
    await database.cleanup();
  }
}

await main();
