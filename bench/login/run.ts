// Benchmark of the login path under a flood (scale issue): while 8 clients log in without
// pause (bcrypt at the production cost, in the hashing threads), a probe measures a cheap
// GET /auth/login at a steady rate; the same GET is measured first on the idle server.
// Several configurations of the hashing threads run one after the other in the same run,
// the old one first as the baseline:
//   - baseline: CPU cores − 1 threads (1 on two cores) at the event loop's priority;
//   - the same number of threads as cores, at the event loop's priority (why the old rule);
//   - the default now: one thread per core, niced to 19 (PASSWORD_HASH_NICE);
//   - two processes (WEB_CONCURRENCY=2) sharing those niced threads.
// Targets: logins/s ≥ 11 while the GET's p99 under the flood stays ≤ 25 ms. Before the
// configurations, the run measures the machine's hashing ceiling (one thread per core
// hashing without pause, nothing else running) and prints each configuration's logins/s
// as a share of it: whether 11/s is reachable at all depends on how long a hash takes here.
// Each configuration also prints where a login's CPU went during the flood (/proc, Linux):
// the server's threads (hashing, and V8's helpers), its event loop (the probe's GETs
// included), PostgreSQL.
//
//   npm run bench:login -- [--node <path to a node binary>] [--duration 10] [--rate 50] [--only <label,label>]
//   (or BENCH_NODE, BENCH_DURATION, BENCH_RATE). --rate is the probe's requests per second.
//   The database is a throw-away one (bench/support.ts: BENCH_DATABASE_URL's or
//   TEST_DATABASE_URL's server when set, else an embedded PostgreSQL).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { projectRoot } from '../../lib/paths.js';
import { startSite, siteEnv, table, type Site } from '../site.js';
import { option, scratchDatabase } from '../support.js';

type RunOptions = autocannon.Options;

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const duration = Number(option('duration', 'BENCH_DURATION', '10'));
// The measuring client is a probe at a steady rate, not a second load generator.
const probeRate = Number(option('rate', 'BENCH_RATE', '50'));
const only = option('only', 'BENCH_ONLY', '');
const LOGIN_CLIENTS = 8;
const HASH_COST = 11;
const EMAIL = 'bench@example.com';
const PASSWORD = 'bench password 0123';
const LOGINS_TARGET = 11;
const CEILING_SECONDS = 6;
const P99_TARGET_MS = 25;
const cores = os.availableParallelism();

interface Configuration {
  label: string;
  processes: number;
  threads: number;
  nice: number;
}

const configurations: Configuration[] = [
  { label: 'baseline', processes: 1, threads: Math.max(1, cores - 1), nice: 0 },
  { label: 'cores-plain', processes: 1, threads: cores, nice: 0 },
  { label: 'cores-niced', processes: 1, threads: cores, nice: 19 },
  { label: 'cluster-niced', processes: 2, threads: cores, nice: 19 },
].filter((each) => !only || only.split(',').includes(each.label));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/**
 * The machine's ceiling: hashes per second of one thread per core that do nothing else
 * (no server, no database, no load generator) for `seconds`. No login setup can pass
 * it, whatever its scheduling: it is the yardstick the logins/s are read against.
 */
function hashingCeiling(seconds: number): number {
  const script = `
    const { Worker } = require('node:worker_threads');
    const body = \`
      const { parentPort, workerData } = require('node:worker_threads');
      const bcrypt = require(workerData.bcrypt);
      const hash = bcrypt.hashSync('x', ${HASH_COST});
      const until = Date.now() + workerData.ms;
      let count = 0;
      while (Date.now() < until) { bcrypt.compareSync('x', hash); count++; }
      parentPort.postMessage(count);\`;
    const bcryptPath = require.resolve('bcryptjs');
    const runs = Array.from({ length: ${cores} }, () => new Promise((resolve) => {
      new Worker(body, { eval: true, workerData: { ms: ${seconds * 1000}, bcrypt: bcryptPath } }).once('message', resolve);
    }));
    Promise.all(runs).then((counts) => console.log(counts.reduce((a, b) => a + b, 0) / ${seconds}));`;
  return Number(execFileSync(nodeBinary, ['-e', script], { cwd: projectRoot, encoding: 'utf8' }).trim());
}

/**
 * CPU seconds so far, from /proc (Linux, 100 Hz ticks): the server's threads other than
 * its event loops (the hashing threads, and V8's helpers: ~2 ms per login), its event
 * loops (the main thread of each process), and PostgreSQL.
 */
interface CpuSample {
  hashing: number;
  server: number;
  postgres: number;
}

function ticksOf(statPath: string): { name: string; ticks: number } {
  try {
    const stat = readFileSync(statPath, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return { name: '', ticks: 0 };
  }
}

function cpuSample(serverPid: number): CpuSample {
  const sample: CpuSample = { hashing: 0, server: 0, postgres: 0 };
  let workers: number[] = [];
  try {
    workers = readFileSync(`/proc/${serverPid}/task/${serverPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // one process, no workers
  }
  for (const pid of [serverPid, ...workers]) {
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of threads) {
      // Thread names differ between Node versions; the main thread is the one whose id is the process's.
      const { ticks } = ticksOf(`/proc/${pid}/task/${tid}/stat`);
      if (tid === String(pid)) sample.server += ticks / 100;
      else sample.hashing += ticks / 100;
    }
  }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const { name, ticks } = ticksOf(`/proc/${entry}/stat`);
    if (name === 'postgres') sample.postgres += ticks / 100;
  }
  return sample;
}

const round = (value: number, digits = 1) => String(Math.round(value * 10 ** digits) / 10 ** digits);

interface Result {
  configuration: Configuration;
  loginsPerSecond: number;
  loginOk: number;
  loginTotal: number;
  /** What the logins answered other than 303: `status×count`, and errors (timeouts included). */
  loginOther: string;
  idle: autocannon.Result;
  loaded: autocannon.Result;
  /** CPU per successful login during the flood, ms (the probe's GETs included in `server`, the event loops). */
  cpuPerLogin: CpuSample;
}

async function createAccount(site: Site): Promise<void> {
  const firstRun = await formTokens(`${site.base}/auth`);
  const created = await fetch(`${site.base}/auth`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: firstRun.cookie },
    body: `${firstRun.fields}&${new URLSearchParams({ name: 'Bench', email: EMAIL, password: PASSWORD })}`,
  });
  if (created.status !== 303) throw new Error(`first run failed: ${created.status}`);
}

async function measure(site: Site, configuration: Configuration): Promise<Result> {
  const login = await formTokens(`${site.base}/auth/login`);
  const loginRequest: RunOptions = {
    url: `${site.base}/auth/login`,
    connections: LOGIN_CLIENTS,
    duration: duration + 2,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: login.cookie, accept: 'text/html' },
    body: `${login.fields}&${new URLSearchParams({ email: EMAIL, password: PASSWORD })}`,
  };
  const getRequest: RunOptions = { url: `${site.base}/auth/login`, connections: 1, duration, overallRate: probeRate };

  await autocannon({ ...getRequest, duration: 2, overallRate: undefined }); // warm-up
  await autocannon({ ...loginRequest, duration: 2 });
  const idle = await autocannon(getRequest);
  // The probe starts once the login load is running, and stops before it.
  const before = cpuSample(site.child.pid!);
  const [logins, loaded] = await Promise.all([autocannon(loginRequest), sleep(1000).then(() => autocannon(getRequest))]);
  const after = cpuSample(site.child.pid!);
  const loginOk = logins.statusCodeStats?.['303']?.count ?? 0;
  const loginTotal = Object.values(logins.statusCodeStats ?? {}).reduce((sum, stat) => sum + (stat.count ?? 0), 0) + logins.errors;
  const other = Object.entries(logins.statusCodeStats ?? {})
    .filter(([status]) => status !== '303')
    .map(([status, stat]) => `${status}×${stat.count}`);
  if (logins.errors) other.push(`errors×${logins.errors} (timeouts ${logins.timeouts})`);
  const perLogin = (key: keyof CpuSample) => (1000 * (after[key] - before[key])) / Math.max(1, loginOk);
  const cpuPerLogin = { hashing: perLogin('hashing'), server: perLogin('server'), postgres: perLogin('postgres') };
  return { configuration, loginsPerSecond: loginOk / logins.duration, loginOk, loginTotal, loginOther: other.join(' '), idle, loaded, cpuPerLogin };
}

async function main(): Promise<void> {
  const version = execFileSync(nodeBinary, ['--version'], { encoding: 'utf8' }).trim();
  const hashMs = oneHashMs();
  const ceiling = hashingCeiling(CEILING_SECONDS);
  console.log(
    `Node ${version}, ${cores} CPU cores, one bcrypt hash at cost ${HASH_COST}: ${round(hashMs)} ms; ${LOGIN_CLIENTS} login clients, ` +
      `probe GET /auth/login at ${probeRate}/s, ${duration} s per configuration; ` +
      `hashing ceiling (${cores} threads hashing without pause, nothing else running, ${CEILING_SECONDS} s): ${round(ceiling)} hashes/s; load average before: ${os
        .loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')}`,
  );
  const database = await scratchDatabase('bench-login');
  const results: Result[] = [];
  let site: Site | undefined;
  try {
    for (const [index, configuration] of configurations.entries()) {
      site = await startSite(
        nodeBinary,
        siteEnv(database.url, database.dataDir, {
          PASSWORD_HASH_COST: String(HASH_COST),
          PASSWORD_HASH_THREADS: String(configuration.threads),
          PASSWORD_HASH_NICE: String(configuration.nice),
          WEB_CONCURRENCY: String(configuration.processes),
          RATE_LIMIT_LOGIN: '100000000/1m',
          RATE_LIMIT_REGISTER: '100000000/1m',
        }),
      );
      if (index === 0) await createAccount(site);
      results.push(await measure(site, configuration));
      await site.stop();
      site = undefined;
    }
  } finally {
    await site?.stop();
    await database.cleanup();
  }

  const baseline = results[0];
  const ok = (pass: boolean) => (pass ? '✔' : '✘');
  console.log(
    '\n' +
      table(
        [
          'configuration',
          'processes',
          'threads (total)',
          'nice',
          'logins/s',
          'vs first',
          'of ceiling',
          '303 / total (others)',
          'GET idle p50 / p99 / max ms',
          'GET under flood p50 / p99 / max ms',
          'CPU per login ms: threads (hashing) / event loop / PostgreSQL',
          'targets',
        ],
        results.map((result) => [
          result.configuration.label,
          String(result.configuration.processes),
          String(result.configuration.threads),
          String(result.configuration.nice),
          round(result.loginsPerSecond),
          `${round((100 * result.loginsPerSecond) / baseline.loginsPerSecond, 0)} %`,
          `${round((100 * result.loginsPerSecond) / ceiling, 0)} %`,
          `${result.loginOk} / ${result.loginTotal}${result.loginOther ? ` (${result.loginOther})` : ''}`,
          `${result.idle.latency.p50} / ${result.idle.latency.p99} / ${result.idle.latency.max}`,
          `${result.loaded.latency.p50} / ${result.loaded.latency.p99} / ${result.loaded.latency.max}`,
          `${round(result.cpuPerLogin.hashing, 0)} / ${round(result.cpuPerLogin.server)} / ${round(result.cpuPerLogin.postgres)}`,
          `logins ≥ ${LOGINS_TARGET} ${ok(result.loginsPerSecond >= LOGINS_TARGET)}, p99 ≤ ${P99_TARGET_MS} ms ${ok(result.loaded.latency.p99 <= P99_TARGET_MS)}` +
            (result.loginOk === result.loginTotal ? '' : ' ✘ failed logins'),
        ]),
      ),
  );
}

await main();
