// Benchmark of a stop under keep-alive load (hardening issue): `--connections` clients
// send GET /auth without pause over keep-alive sockets; SIGTERM lands after `--before`
// seconds. For the site and for a baseline (a bare node:http server stopped with
// server.close() alone) it prints the exit code, the time from the signal to the
// exit, the requests answered, and the requests cut (an answer that had begun, or a
// failure other than a reset or refusal of a request the server never read; see
// RFC 9112 §9.3.1). Target for the site: exit 0 and 0 cut, stop time bounded by the
// slowest request in flight.
//
//   npm run bench:shutdown -- [--node <path to a node binary>] [--connections 16] [--before 2]
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../lib/embedded-postgres.js';
import { projectRoot } from '../../lib/paths.js';
import { option, scratchDatabase } from '../support.js';

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const connections = Number(option('connections', 'BENCH_CONNECTIONS', '16'));
const beforeSeconds = Number(option('before', 'BENCH_BEFORE', '2'));

interface Trial {
  name: string;
  exitCode: number | null;
  stopMs: number;
  answered: number;
  answeredAfterSignal: number;
  cut: number;
  resetUnread: number;
  refused: number;
}

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

async function trial(name: string, script: string, env: Record<string, string>, port: number): Promise<Trial> {
  const server = spawnProcess(script, { ...env, PORT: String(port) });
  await waitForListening(server, port);
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const result: Trial = { name, exitCode: null, stopMs: 0, answered: 0, answeredAfterSignal: 0, cut: 0, resetUnread: 0, refused: 0 };
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
          result.cut++;
          resolve();
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (!answered && error.code === 'ECONNRESET') result.resetUnread++;
        else if (!answered && error.code === 'ECONNREFUSED') result.refused++;
        else result.cut++;
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
    const trials = [
      await trial('baseline: bare node:http, server.close()', 'bench/shutdown/naive-server.ts', {}, await freePort()),
      await trial('site (app.ts)', 'app.ts', siteEnv, await freePort()),
    ];
    console.log(
      `\nSIGTERM under keep-alive load: ${connections} connections, signal after ${beforeSeconds} s, Node ${process.version} driver, server under ${nodeBinary}\n`,
    );
    console.log('| server | exit code | stop time | answered (after signal) | cut | reset unread | refused |');
    console.log('|---|---|---|---|---|---|---|');
    for (const t of trials) {
      console.log(`| ${t.name} | ${t.exitCode} | ${t.stopMs} ms | ${t.answered} (${t.answeredAfterSignal}) | ${t.cut} | ${t.resetUnread} | ${t.refused} |`);
    }
    const site = trials[1];
    const ok = site.exitCode === 0 && site.cut === 0;
    console.log(`\nsite target (exit 0, 0 cut): ${ok ? 'met' : 'NOT met'}`);
  } finally {
    await database.cleanup();
  }
}

await main();
