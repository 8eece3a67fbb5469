// Benchmark of the public read cache's invalidation across processes (scale issue): two
// servers (app.ts, production settings) on one database. Each change is committed
// through the first (PUT /app/api/admin/pages/:id, a new paragraph "Version n"), then the
// second is read (GET /app/api/pages/by-path, one keep-alive connection, back to back)
// until it serves version n. The latency of a change runs from the PUT's answer (the
// commit is done) to the first read of the second server that shows it. Targets: p99 ≤ 50 ms
// over 1,000 changes; never an older version after a newer one was seen, on either
// server (every read of the run is checked; the bench fails otherwise); the writing
// server shows its own change at the first read after its answer (read-your-writes).
// The same run with PAGE_CACHE_MB=0 is the baseline: no cache, so no invalidation, the
// second server reads the database at each request.
//
//   npm run bench:invalidation -- [--node <path>] [--changes 1000] [--reads-after 2]
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { option, scratchDatabase } from '../support.js';
import { percentile, siteEnv, startSite, table, type Site } from '../site.js';

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const changes = Number(option('changes', 'BENCH_CHANGES', '1000'));
const readsAfter = Number(option('reads-after', 'BENCH_READS_AFTER', '2'));
const P99_TARGET_MS = 50;
const SLUG = 'invalidation';
const EMAIL = 'bench@example.com';
const PASSWORD = 'bench password 0123';

interface Answer {
  status: number;
  body: string;
  cookies: string[];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function send(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, cookies: res.headers['set-cookie'] ?? [] }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const cookiePairs = (answer: Answer) => answer.cookies.map((line) => line.split(';')[0]);

/** The administrator, created through the first-run form of `site`; returns the session's cookies. */
async function administrator(site: Site): Promise<string> {
  const form = await send(site.base, 'GET', '/auth');
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form.body)?.[1] ?? '';
  // Production asks the first run for the setup code the server printed at its start.
  const setupCode = /asks for this setup code: ([A-Z0-9-]+)/.exec(site.output())?.[1];
  // The anti-bot stamp wants a form open for more than a second.
  await new Promise((resolve) => setTimeout(resolve, 1600));
  const created = await send(
    site.base,
    'POST',
    '/auth',
    { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiePairs(form).join('; ') },
    new URLSearchParams({
      _csrf: field('_csrf'),
      _t: field('_t'),
      _hp: '',
      name: 'Bench',
      email: EMAIL,
      password: PASSWORD,
      ...(setupCode ? { setupCode } : {}),
    }).toString(),
  );
  if (created.status !== 303) throw new Error(`first run failed: ${created.status} ${created.body.slice(0, 300)}`);
  return [...cookiePairs(form), ...cookiePairs(created)].join('; ');
}

const versionOf = (answer: Answer): number => {
  if (answer.status !== 200) throw new Error(`by-path answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  const found = /Version (\d+)\b/.exec(answer.body);
  if (!found) throw new Error(`no version in ${answer.body.slice(0, 300)}`);
  return Number(found[1]);
};

interface Phase {
  label: string;
  latencies: number[];
  reads: number;
  /** Reads that showed an older version than one seen before on the same server. */
  wentBack: number;
  /** First reads of the writing server, right after its answer, that did not show its change. */
  staleOwnReads: number;
  seconds: number;
}

async function runPhase(label: string, env: Record<string, string>, databaseUrl: string, dataDir: string, first: boolean): Promise<Phase> {
  const sites: Site[] = [];
  try {
    const writer = await startSite(nodeBinary, siteEnv(databaseUrl, dataDir, env));
    sites.push(writer);
    const reader = await startSite(nodeBinary, siteEnv(databaseUrl, dataDir, env));
    sites.push(reader);
    const cookie = first ? await administrator(writer) : await loginCookie(writer);
    const json = { 'content-type': 'application/json', cookie, accept: 'application/json' };
    const byPath = `/app/api/pages/by-path?path=${SLUG}`;
    let id: number;
    if (first) {
      const created = await send(
        writer.base,
        'POST',
        '/app/api/admin/pages',
        json,
        JSON.stringify({ title: 'Invalidation', slug: SLUG, visibility: 'public', blocks: [{ type: 'paragraph', text: 'Version 0' }] }),
      );
      if (created.status !== 201) throw new Error(`page creation failed: ${created.status} ${created.body.slice(0, 300)}`);
      id = (JSON.parse(created.body) as { id?: number; page?: { id: number } }).id ?? (JSON.parse(created.body) as { page: { id: number } }).page.id;
    } else {
      id = (JSON.parse((await send(writer.base, 'GET', byPath)).body) as { id: number }).id;
    }
    const phase: Phase = { label, latencies: [], reads: 0, wentBack: 0, staleOwnReads: 0, seconds: 0 };
    const seen = new Map<Site, number>();
    const read = async (site: Site) => {
      const version = versionOf(await send(site.base, 'GET', byPath));
      if (version < (seen.get(site) ?? 0)) phase.wentBack++;
      seen.set(site, Math.max(version, seen.get(site) ?? 0));
      phase.reads++;
      return version;
    };
    // Both caches warm with the current version before the first change.
    const start = versionOf(await send(writer.base, 'GET', byPath));
    await read(reader);
    const started = performance.now();
    for (let change = start + 1; change <= start + changes; change++) {
      const put = await send(
        writer.base,
        'PUT',
        `/app/api/admin/pages/${id}`,
        json,
        JSON.stringify({ blocks: [{ type: 'paragraph', text: `Version ${change}` }] }),
      );
      const committed = performance.now();
      if (put.status !== 200) throw new Error(`PUT failed: ${put.status} ${put.body.slice(0, 300)}`);
      for (;;) {
        if ((await read(reader)) >= change) break;
        if (performance.now() - committed > 10_000) throw new Error(`version ${change} not served by the second server after 10 s`);
      }
      phase.latencies.push(performance.now() - committed);
      for (let again = 0; again < readsAfter; again++) await read(reader);
      if ((await read(writer)) < change) phase.staleOwnReads++;
    }
    phase.seconds = (performance.now() - started) / 1000;
    return phase;
  } finally {
    for (const site of sites) await site.stop();
  }
}

/** A session for the administrator created in the first phase (a login through the form). */
async function loginCookie(site: Site): Promise<string> {
  const form = await send(site.base, 'GET', '/auth/login');
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form.body)?.[1] ?? '';
  await new Promise((resolve) => setTimeout(resolve, 1600));
  const login = await send(
    site.base,
    'POST',
    '/auth/login',
    { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiePairs(form).join('; ') },
    new URLSearchParams({ _csrf: field('_csrf'), _t: field('_t'), _hp: '', email: EMAIL, password: PASSWORD }).toString(),
  );
  if (login.status !== 303) throw new Error(`login failed: ${login.status} ${login.body.slice(0, 300)}`);
  return [...cookiePairs(form), ...cookiePairs(login)].join('; ');
}

async function main(): Promise<void> {
  const version = execFileSync(nodeBinary, ['--version'], { encoding: 'utf8' }).trim();
  console.log(
    `Node ${version}, ${os.availableParallelism()} CPU cores; ${changes} changes per configuration, each read back from the other server, then ${readsAfter} more reads; ` +
      `load average before: ${os
        .loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')}`,
  );
  const database = await scratchDatabase('bench-invalidation');
  const limits = { RATE_LIMIT_API: '100000000/1m', RATE_LIMIT_LOGIN: '100000000/1m', PASSWORD_HASH_COST: '11' };
  const phases: Phase[] = [];
  try {
    phases.push(await runPhase('cache off (PAGE_CACHE_MB=0), baseline', { ...limits, PAGE_CACHE_MB: '0' }, database.url, database.dataDir, true));
    phases.push(await runPhase('cache on (PAGE_CACHE_MB=32)', { ...limits, PAGE_CACHE_MB: '32' }, database.url, database.dataDir, false));
  } finally {
    agent.destroy();
    await database.cleanup();
  }
  const ms = (value: number) => value.toFixed(1);
  console.log(
    '\n' +
      table(
        [
          'configuration',
          'changes',
          'latency p50 / p99 / max ms',
          'reads per change',
          'older after newer',
          'writer stale after its own change',
          'changes/s',
          'target p99 ≤ 50 ms',
        ],
        phases.map((phase) => [
          phase.label,
          String(phase.latencies.length),
          `${ms(percentile(phase.latencies, 50))} / ${ms(percentile(phase.latencies, 99))} / ${ms(Math.max(...phase.latencies))}`,
          (phase.reads / phase.latencies.length).toFixed(1),
          String(phase.wentBack),
          String(phase.staleOwnReads),
          (phase.latencies.length / phase.seconds).toFixed(0),
          percentile(phase.latencies, 99) <= P99_TARGET_MS ? '✔' : '✘',
        ]),
      ),
  );
  const wrong = phases.filter((phase) => phase.wentBack > 0 || phase.staleOwnReads > 0);
  if (wrong.length > 0) {
    console.error(`\nFAILED: old content served after new content in ${wrong.map((phase) => phase.label).join(', ')}`);
    process.exitCode = 1;
  }
}

await main();
