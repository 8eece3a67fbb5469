// Benchmark of the API's authentication cost (issue: REST API). On 10,000 users it
// measures, in one run and one process, `GET /app/api/users?limit=50`:
//   - authenticated: the real app (session read, user + permissions, guard, handler);
//   - bare: the same validation and handler mounted without session or guard.
// It reports requests/s, p99 latency and SQL statements per request (counted from
// knex's `query` events; the session store goes through knex too).
//
//   npm run bench:api [-- --duration 10 --connections 10 --node /path/to/node]
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
}

// Both counted on the server side (requests as they arrive), so requests still in
// flight when autocannon stops count on both sides of the ratio.
let statements = 0;
let served = 0;
const sqlSeen = new Map<string, number>();

async function measure(label: string, url: string, headers: Record<string, string>, seconds: number, connections: number): Promise<Measure> {
  statements = 0;
  served = 0;
  const result = await autocannon({ url, headers, duration: seconds, connections, pipelining: 1 });
  const requests = result.requests.total;
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    label,
    requestsPerSecond: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    meanMs: Math.round(result.latency.average * 100) / 100,
    requests,
    non2xx: result.non2xx,
    statementsPerRequest: Math.round((statements / Math.max(1, served)) * 100) / 100,
  };
}

async function main(): Promise<void> {
  const otherNode = process.env.BENCH_CHILD ? undefined : option('node', 'BENCH_NODE', '') || undefined;
  if (otherNode) await relaunchUnder(otherNode);
  const seconds = Number(option('duration', 'BENCH_DURATION', '10'));
  const connections = Number(option('connections', 'BENCH_CONNECTIONS', '10'));

  const database = await scratchDatabase('bench-api');
  const app = createApp(
    loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      SESSION_SECRET: 'bench-session-secret-0123456789-0123456789',
      BASE_URL: 'http://bench.local',
      LOG_LEVEL: 'silent',
    }),
  );
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
    const [admin] = await ctx.db('app_auth_users').insert({ email: 'admin@example.com', name: 'Admin', role_id: await roleId('admin'), email_verified: true }).returning('id');
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

    const servers = [app.listen(0, '127.0.0.1'), bare.listen(0, '127.0.0.1')];
    await Promise.all(servers.map((server) => new Promise((resolve) => server.once('listening', resolve))));
    for (const server of servers) server.on('request', () => served++);
    const [appUrl, bareUrl] = servers.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`);
    ctx.db.on('query', (query: { sql: string }) => {
      if (process.env.BENCH_DEBUG) sqlSeen.set(query.sql.slice(0, 80), (sqlSeen.get(query.sql.slice(0, 80)) ?? 0) + 1);
      statements++;
    });

    for (const [url, headers] of [[appUrl, { cookie }], [bareUrl, {}]] as const) {
      const check = await fetch(url, { headers });
      const body = (await check.json()) as { total: number; items: unknown[] };
      if (check.status !== 200 || body.total !== USERS || body.items.length !== 50) throw new Error(`unexpected answer from ${url}: ${check.status} ${JSON.stringify(body).slice(0, 200)}`);
    }

    // Warm both paths (JIT, pool, plan cache), then measure them one after the other.
    await measure('warm-up', bareUrl, {}, 2, connections);
    await measure('warm-up', appUrl, { cookie }, 2, connections);
    const results = [
      await measure('bare (no session lookup)', bareUrl, {}, seconds, connections),
      await measure('authenticated', appUrl, { cookie }, seconds, connections),
    ];
    const [plain, authed] = results;
    if (process.env.BENCH_DEBUG) console.log(sqlSeen);
    console.log(`\nGET ${PATH} on ${USERS} users — Node ${process.version}, ${connections} connections, ${seconds} s each\n`);
    console.table(results.map(({ label, ...numbers }) => ({ path: label, ...numbers })));
    const ratio = authed.requestsPerSecond / plain.requestsPerSecond;
    const authStatements = Math.round((authed.statementsPerRequest - plain.statementsPerRequest) * 100) / 100;
    const costMs = Math.round((authed.meanMs - plain.meanMs) * 100) / 100;
    console.log(`authentication: ${authStatements} SQL statements per request (target ≤ 2), ` + `throughput ${(ratio * 100).toFixed(1)} % of the bare handler (target ≥ 55 %), ` + `+${costMs} ms mean latency at this concurrency`);
    console.log(JSON.stringify({ node: process.version, users: USERS, results, authStatements, throughputRatio: Math.round(ratio * 1000) / 1000 }));
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    if (authed.non2xx || plain.non2xx) process.exitCode = 1;
  } finally {
    await closeApp(app);
    await database.cleanup();
  }
}

await main();
