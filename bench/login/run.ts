// Benchmark of the login path (issue: auth pages). While 8 clients log in without
// pause (bcrypt at the production cost, in the hashing threads), a second client
// measures GET /auth/login; the same GET is measured first on the idle server.
// Targets: p99 of the GET under load ≤ max(25 ms, 3 × idle p99) (hashing stays off the
// event loop), and logins/s ≥ 75 % of threads × 1000 / (one hash in ms).
//
//   npm run bench:login -- [--node <path to a node binary>] [--duration 10] [--threads N] [--rate 50]
//   (or BENCH_NODE, BENCH_DURATION, BENCH_THREADS, BENCH_RATE). --threads defaults to
//   the CPUs less one (1 or 2); --rate is the measuring client's requests per second.
//   The database is a throw-away one (bench/support.ts: BENCH_DATABASE_URL's or
//   TEST_DATABASE_URL's server when set, else an embedded PostgreSQL).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../../lib/embedded-postgres.js';
import { projectRoot } from '../../lib/paths.js';
import { option, scratchDatabase } from '../support.js';

type RunOptions = autocannon.Options;

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const duration = Number(option('duration', 'BENCH_DURATION', '10'));
// One core stays for the event loop: on a 2-CPU machine that means one hashing thread.
const threads = Number(option('threads', 'BENCH_THREADS', String(Math.max(1, Math.min(2, os.cpus().length - 1)))));
// The measuring client is a probe at a steady rate, not a second load generator.
const probeRate = Number(option('rate', 'BENCH_RATE', '50'));
const LOGIN_CLIENTS = 8;
const HASH_COST = 11;
const EMAIL = 'bench@example.com';
const PASSWORD = 'bench password 0123';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startServer(databaseUrl: string, port: number, dataDir: string): { child: ChildProcess; output(): string } {
  let output = '';
  const child = spawn(nodeBinary, ['--import', 'tsx', path.join(projectRoot, 'app.ts')], {
    cwd: projectRoot,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: `http://127.0.0.1:${port}`,
      SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-0123456789',
      PASSWORD_HASH_COST: String(HASH_COST),
      PASSWORD_HASH_THREADS: String(threads),
      // One request log line per request would measure the logger; errors still show.
      LOG_LEVEL: 'warn',
      RATE_LIMIT_LOGIN: '100000000/1m',
      RATE_LIMIT_REGISTER: '100000000/1m',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

async function waitUntilUp(base: string, server: { child: ChildProcess; output(): string }): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`server exited:\n${server.output()}`);
    try {
      if ((await fetch(`${base}/auth/login`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`server did not start:\n${server.output()}`);
}

/** Opens a form like a browser: its CSRF cookie and hidden fields, then waits past the anti-bot minimum. */
async function formTokens(url: string): Promise<{ cookie: string; fields: string }> {
  const response = await fetch(url);
  const html = await response.text();
  const cookie = response.headers
    .getSetCookie()
    .map((value) => value.split(';')[0])
    .join('; ');
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)![1];
  await sleep(1600);
  return { cookie, fields: new URLSearchParams({ _csrf: field('_csrf'), _t: field('_t'), _hp: '' }).toString() };
}

function oneHashMs(): number {
  const script = `
    const bcrypt = require('bcryptjs');
    const hash = bcrypt.hashSync('x', ${HASH_COST});
    bcrypt.compareSync('x', hash);
    const runs = 5, started = performance.now();
    for (let i = 0; i < runs; i++) bcrypt.compareSync('x', hash);
    console.log((performance.now() - started) / runs);`;
  return Number(execFileSync(nodeBinary, ['-e', script], { cwd: projectRoot, encoding: 'utf8' }).trim());
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  const version = execFileSync(nodeBinary, ['--version'], { encoding: 'utf8' }).trim();
  const database = await scratchDatabase('bench-login');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = startServer(database.url, port, database.dataDir);
  try {
    await waitUntilUp(base, server);
    // The account to log in with, created through the first-run form.
    const firstRun = await formTokens(`${base}/auth`);
    const created = await fetch(`${base}/auth`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: firstRun.cookie },
      body: `${firstRun.fields}&${new URLSearchParams({ name: 'Bench', email: EMAIL, password: PASSWORD })}`,
    });
    if (created.status !== 303) throw new Error(`first run failed: ${created.status}`);

    const login = await formTokens(`${base}/auth/login`);
    const loginRequest: RunOptions = {
      url: `${base}/auth/login`,
      connections: LOGIN_CLIENTS,
      duration: duration + 2,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: login.cookie, accept: 'text/html' },
      body: `${login.fields}&${new URLSearchParams({ email: EMAIL, password: PASSWORD })}`,
    };
    const getRequest: RunOptions = { url: `${base}/auth/login`, connections: 1, duration, overallRate: probeRate };

    await autocannon({ ...getRequest, duration: 2, overallRate: undefined }); // warm-up
    await autocannon({ ...loginRequest, duration: 2 });
    const idle = await autocannon(getRequest);
    // The measuring client starts once the login load is running, and stops before it.
    const [logins, loaded] = await Promise.all([autocannon(loginRequest), sleep(1000).then(() => autocannon(getRequest))]);

    const loginOk = logins.statusCodeStats?.['303']?.count ?? 0;
    const loginTotal = Object.values(logins.statusCodeStats ?? {}).reduce((sum, stat) => sum + (stat.count ?? 0), 0);
    const loginsPerSecond = loginOk / logins.duration;
    const hashMs = oneHashMs();
    const loginTarget = 0.75 * ((threads * 1000) / hashMs);
    const p99Target = Math.max(25, 3 * idle.latency.p99);

    const rows: Array<[string, string, string]> = [
      ['Node', version, ''],
      ['CPUs / hashing threads', `${os.cpus().length} / ${threads}`, ''],
      ['one bcrypt hash (cost 11)', `${round(hashMs)} ms`, ''],
      ['logins/s (8 clients)', `${round(loginsPerSecond)}`, `≥ ${round(loginTarget)} ${loginsPerSecond >= loginTarget ? '✔' : '✘'}`],
      ['login answers 303 / total', `${loginOk} / ${loginTotal}`, loginOk === loginTotal ? '✔' : '✘'],
      ['GET /auth/login idle p50 / p99', `${idle.latency.p50} / ${idle.latency.p99} ms`, ''],
      [
        'GET /auth/login under login load p50 / p99',
        `${loaded.latency.p50} / ${loaded.latency.p99} ms`,
        `p99 ≤ ${round(p99Target)} ms ${loaded.latency.p99 <= p99Target ? '✔' : '✘'}`,
      ],
      ['GET probe rate (req/s)', `${probeRate}`, ''],
    ];
    console.log(`\n| measure | value | target |\n|---|---|---|`);
    for (const [measure, value, target] of rows) console.log(`| ${measure} | ${value} | ${target} |`);
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => (server.child.exitCode !== null ? resolve(undefined) : server.child.once('exit', resolve)));
    await database.cleanup();
  }
}

await main();
