// Benchmark of the API's authentication cost (issue: REST API). On 10,000 users it
// measures, in one run and one process, `GET /app/api/users?limit=50`:
//   - authenticated: the real app (session read, user + permissions, guard, handler);
//   - bare: the same validation and handler mounted without session or guard.
// It reports requests/s, p99 latency and SQL statements per request (counted from
// knex's `query` events; the session store goes through knex too). It also measures the
// cost of the Prometheus metrics (issue: operations): the authenticated path on a second
// app over the same database with METRICS_TOKEN set (duration histogram, statements per
// request through AsyncLocalStorage) against the app without it, in `--rounds` pairs of
// `--slice`-second runs, alternated (AB BA AB …) so the drift of a shared machine weighs
// on both sides alike (target: ≥ 97 % of the throughput without metrics). On Node < 24
// an enabled AsyncLocalStorage slows every promise of the process, both apps alike, so
// this comparison sees the per-request hooks, not that part (measured apart in
// docs/decisions.md, "Operations"); Node 24 has no such cost.
//
//   npm run bench:api [-- --duration 10 --connections 10 --rounds 10 --slice 2 --node /path/to/node]
// Database: a throw-away one (bench/support.ts: BENCH_DATABASE_URL's or
// TEST_DATABASE_URL's server when set, else an embedded PostgreSQL). `--node <path>` or BENCH_NODE
// re-runs this script under another Node binary.
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import signature from 'cookie-signature';
import express from 'express';
import { closeApp, createApp } from '../../app.js';
import { loadConfig } from '../../lib/config.js';
import { createErrorHandler } from '../../middleware/error-handler.js';
import { SESSION_COOKIE } from '../../middleware/session.js';
import { createSession } from '../../models/auth/sessions.js';
import { mountRoutes, type Surface } from '../../routes/define.js';
import { userApiRoutes } from '../../routes/api/users.js';
import { option, scratchDatabase } from '../support.js';

const USERS = 10_000;
const PATH = '/app/api/users?limit=50';
const METRICS_TOKEN = 'bench-metrics-token-0123456789-0123456789';

async function relaunchUnder(node: string): Promise<never> {
  const script = fileURLToPath(import.meta.url);
  const args = process.argv.slice(2).filter((_, index, all) => all[index] !== '--node' && all[index - 1] !== '--node');
  const child = spawn(node, ['--import', 'tsx', script, ...args], { stdio: 'inherit', env: { ...process.env, BENCH_NODE: '', BENCH_CHILD: '1' } });
  const code = await new Promise<number>((resolve) => child.on('exit', (status) => resolve(status ?? 1)));
  process.exit(code);
}

interface Measure {
  label: string;
  requestsPerSecond: number;
  p99Ms: number;
  meanMs: number;
  requests: number;
  non2xx: number;
  statementsPerRequest: number;
  /** CPU time of this process (servers and autocannon alike) per request served, in µs. */
  cpuUsPerRequest: number;
}

// Both counted on the server side (requests as they arrive), so requests still in
// flight when autocannon stops count on both sides of the ratio.
let statements = 0;
let served = 0;
const sqlSeen = new Map<string, number>();

async function measure(label: string, url: string, headers: Record<string, string>, seconds: number, connections: number): Promise<Measure> {
  statements = 0;
  served = 0;
  const cpu = process.cpuUsage();
  const result = await autocannon({ url, headers, duration: seconds, connections, pipelining: 1 });
  const requests = result.requests.total;
  await new Promise((resolve) => setTimeout(resolve, 200));
  const used = process.cpuUsage(cpu);
  return {
    label,
    requestsPerSecond: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    meanMs: Math.round(result.latency.average * 100) / 100,
    requests,
    non2xx: result.non2xx,
    statementsPerRequest: Math.round((statements / Math.max(1, served)) * 100) / 100,
    cpuUsPerRequest: Math.round((used.user + used.system) / Math.max(1, served)),
  };
}

/** Several runs of one side as one row: their totals, and their latencies averaged. */
function combine(label: string, measures: Measure[], seconds: number): Measure {
  const requests = measures.reduce((sum, one) => sum + one.requests, 0);
  const average = (pick: (one: Measure) => number) =>
    Math.round((measures.reduce((sum, one) => sum + pick(one) * one.requests, 0) / Math.max(1, requests)) * 100) / 100;
  return {
    label,
    requestsPerSecond: Math.round(requests / seconds),
    p99Ms: Math.max(...measures.map((one) => one.p99Ms)),
    meanMs: average((one) => one.meanMs),
    requests,
    non2xx: measures.reduce((sum, one) => sum + one.non2xx, 0),
    statementsPerRequest: average((one) => one.statementsPerRequest),
    cpuUsPerRequest: Math.round(average((one) => one.cpuUsPerRequest)),
  };
}

async function main(): Promise<void> {
  const otherNode = process.env.BENCH_CHILD ? undefined : option('node', 'BENCH_NODE', '') || undefined;
  if (otherNode) await relaunchUnder(otherNode);
  const seconds = Number(option('duration', 'BENCH_DURATION', '10'));
  const connections = Number(option('connections', 'BENCH_CONNECTIONS', '10'));
  const rounds = Number(option('rounds', 'BENCH_ROUNDS', '10'));
  const slice = Number(option('slice', 'BENCH_SLICE', '2'));

  const database = await scratchDatabase('bench-api');
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    DATA_DIR: database.dataDir,
    SESSION_SECRET: 'bench-session-secret-0123456789-0123456789',
    BASE_URL: 'http://bench.local',
    MAIL_OUTBOX: 'true',
    LOG_LEVEL: 'silent',
  };
  const app = createApp(loadConfig(env));
  // The same app with its metrics on: same database, same session secret, same cookie.
  const metered = createApp(loadConfig({ ...env, METRICS_TOKEN }));
  const ctx = app.locals.ctx;
  try {
    const roleId = async (name: string): Promise<number> => {
      const role = await ctx.db('app_auth_roles').where({ name }).first('id');
      if (!role) throw new Error(`no role "${name}": were the migrations run?`);
      return role.id;
    };
    await ctx.db.raw(
      `INSERT INTO app_auth_users (email, name, role_id, email_verified)
       SELECT 'user' || g || '@example.com', 'User ' || g, ?, true FROM generate_series(1, ?) g`,
      [await roleId('user'), USERS - 1],
    );
    const [admin] = await ctx
      .db('app_auth_users')
      .insert({ email: 'admin@example.com', name: 'Admin', role_id: await roleId('admin'), email_verified: true })
      .returning('id');
    await ctx.db.raw('ANALYZE');
    const sid = await createSession(ctx, admin.id, { ip: '127.0.0.1', userAgent: 'bench' });
    const cookie = `${SESSION_COOKIE}=${encodeURIComponent('s:' + signature.sign(sid, ctx.config.sessionSecret))}`;

    // The same row (validation and handler) on a surface without the session lookup,
    // and public, so no guard.
    const listRow = userApiRoutes.find((row) => row.method === 'get' && row.path === '/users');
    if (!listRow) throw new Error('GET /users is not among the API rows');
    const bareSurface: Surface = { strict: true, session: [], prepare: () => [], failure: () => [] };
    const bareRouter = express.Router();
    mountRoutes(bareRouter, ctx, bareSurface, [{ ...listRow, access: 'public' }]);
    const bare = express();
    bare.set('query parser', 'simple');
    bare.use('/app/api', bareRouter);
    bare.use(createErrorHandler(ctx));

    const servers = [app.listen(0, '127.0.0.1'), bare.listen(0, '127.0.0.1'), metered.listen(0, '127.0.0.1')];
    await Promise.all(servers.map((server) => new Promise((resolve) => server.once('listening', resolve))));
    for (const server of servers) server.on('request', () => served++);
    const [appUrl, bareUrl, meteredUrl] = servers.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`);
    for (const { db } of [ctx, metered.locals.ctx]) {
      db.on('query', (query: { sql: string }) => {
        if (process.env.BENCH_DEBUG) sqlSeen.set(query.sql.slice(0, 80), (sqlSeen.get(query.sql.slice(0, 80)) ?? 0) + 1);
        statements++;
      });
    }

    for (const [url, headers] of [
      [appUrl, { cookie }],
      [bareUrl, {}],
      [meteredUrl, { cookie }],
    ] as const) {
      const check = await fetch(url, { headers });
      const body = (await check.json()) as { total: number; items: unknown[] };
      if (check.status !== 200 || body.total !== USERS || body.items.length !== 50)
        throw new Error(`unexpected answer from ${url}: ${check.status} ${JSON.stringify(body).slice(0, 200)}`);
    }

    // Warm both paths (JIT, pool, plan cache), then measure them one after the other.
    await measure('warm-up', bareUrl, {}, 2, connections);
    await measure('warm-up', appUrl, { cookie }, 2, connections);
    await measure('warm-up', meteredUrl, { cookie }, 2, connections);
    const results = [
      await measure('bare (no session lookup)', bareUrl, {}, seconds, connections),
      await measure('authenticated', appUrl, { cookie }, seconds, connections),
    ];
    const [plain, authed] = results;
    const withoutMetrics: Measure[] = [];
    const withMetrics: Measure[] = [];
    for (let round = 0; round < rounds; round++) {
      const off = async () => void withoutMetrics.push(await measure('off', appUrl, { cookie }, slice, connections));
      const on = async () => void withMetrics.push(await measure('on', meteredUrl, { cookie }, slice, connections));
      if (round % 2 === 0) await off().then(on);
      else await on().then(off);
    }
    // A burst of another program's work lands on one side of a pair: the median pair ignores it.
    const pairRatios = withMetrics.map((one, index) => one.requests / Math.max(1, withoutMetrics[index].requests)).sort((a, b) => a - b);
    const medianRatio = pairRatios[Math.floor(pairRatios.length / 2)];
    const metricsOff = combine(`authenticated, metrics off (${rounds} × ${slice} s)`, withoutMetrics, rounds * slice);
    const metricsOn = combine(`authenticated, metrics on (${rounds} × ${slice} s)`, withMetrics, rounds * slice);
    results.push(metricsOff, metricsOn);
    if (process.env.BENCH_DEBUG) console.log(sqlSeen);
    console.log(`\nGET ${PATH} on ${USERS} users — Node ${process.version}, ${connections} connections, ${seconds} s each\n`);
    console.table(results.map(({ label, ...numbers }) => ({ path: label, ...numbers })));
    const ratio = authed.requestsPerSecond / plain.requestsPerSecond;
    const authStatements = Math.round((authed.statementsPerRequest - plain.statementsPerRequest) * 100) / 100;
    const costMs = Math.round((authed.meanMs - plain.meanMs) * 100) / 100;
    console.log(
      `authentication: ${authStatements} SQL statements per request (target ≤ 2), ` +
        `throughput ${(ratio * 100).toFixed(1)} % of the bare handler (target ≥ 55 %), ` +
        `+${costMs} ms mean latency at this concurrency`,
    );
    const metricsRatio = metricsOn.requests / metricsOff.requests;
    const scrape = await fetch(meteredUrl.replace(PATH, '/metrics'), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((response) =>
      response.text(),
    );
    const series = (name: string) => Number(new RegExp(`^${name}\\{route="/app/api/users"\\} (\\S+)$`, 'm').exec(scrape)?.[1]);
    const meteredStatements = series('site_db_statements_per_request_sum') / series('site_db_statements_per_request_count');
    console.log(
      `metrics: throughput ${(metricsRatio * 100).toFixed(1)} % of the same app without them over ${rounds} alternated pairs ` +
        `(median pair ${(medianRatio * 100).toFixed(1)} %, pairs from ${(pairRatios[0] * 100).toFixed(0)} to ${(pairRatios[pairRatios.length - 1] * 100).toFixed(0)} %; target ≥ 97 %), ` +
        `${metricsOn.cpuUsPerRequest - metricsOff.cpuUsPerRequest} µs of CPU per request more; ` +
        `/metrics saw ${meteredStatements.toFixed(2)} SQL statements per request on /app/api/users`,
    );
    console.log(
      JSON.stringify({
        node: process.version,
        users: USERS,
        results,
        authStatements,
        throughputRatio: Math.round(ratio * 1000) / 1000,
        metricsThroughputRatio: Math.round(metricsRatio * 1000) / 1000,
        metricsMedianPairRatio: Math.round(medianRatio * 1000) / 1000,
      }),
    );
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    if (results.some((result) => result.non2xx)) process.exitCode = 1;
  } finally {
    await closeApp(app);
    await closeApp(metered);
    await database.cleanup();
  }
}

await main();
