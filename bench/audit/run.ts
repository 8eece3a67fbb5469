// Benchmark of the audit log's listings (issue: accounts, audit log). On 1,000,000
// events (one INSERT … SELECT generate_series: 1,000 actors, 5,000 pages with about 100
// events each, users and roles as the other targets), it measures through the real app
// (session, guard, validation, model, JSON), one request at a time:
//   - one actor's latest 50:   GET /app/api/audit?actor_id=<id>&limit=50
//   - one page's history:      GET /app/api/audit?target_type=page&target_id=<id>&limit=50
//   - the next page of each:   the same with the cursor the first answer gave
// and, as the baseline, the statement the model runs, sent bare through pg. Target:
// p99 < 20 ms through the app.
//
//   npm run bench:audit [-- --requests 500]
// Database: a throw-away one (bench/support.ts: BENCH_DATABASE_URL's or
// TEST_DATABASE_URL's server when set, else an embedded PostgreSQL).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import signature from 'cookie-signature';
import pg from 'pg';
import { closeApp, createApp } from '../../app.js';
import { loadConfig } from '../../lib/config.js';
import { SESSION_COOKIE } from '../../middleware/session.js';
import { createSession } from '../../models/auth/sessions.js';
import { option, scratchDatabase } from '../support.js';

const EVENTS = 1_000_000;
const ACTORS = 1_000;
const PAGES = 5_000;
const TARGET_P99_MS = 20;

interface Row {
  label: string;
  /** SQL statements per request. */
  statements?: number;
  /** CPU time of this process (server and client) per request. */
  cpuMs?: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
  items: number;
}

function summarize(label: string, timings: number[], items: number): Row {
  const sorted = [...timings].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    label,
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1]),
    mean: round(timings.reduce((a, b) => a + b, 0) / timings.length),
    items,
  };
}

async function timed(count: number, run: (index: number) => Promise<number>): Promise<{ timings: number[]; items: number }> {
  const timings: number[] = [];
  let items = 0;
  for (let index = 0; index < count; index++) {
    const start = process.hrtime.bigint();
    items += await run(index);
    timings.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { timings, items: Math.round(items / count) };
}

// Spread picks over the whole range, the same ones on both sides.
const pick = (index: number, range: number) => 1 + ((index * 7919) % range);

async function main(): Promise<void> {
  const requests = Number(option('requests', 'BENCH_REQUESTS', '500'));
  const database = await scratchDatabase('bench-audit');
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
  const ctx = app.locals.ctx;
  const bare = new pg.Client({ connectionString: database.url });
  try {
    const seedStart = Date.now();
    await ctx.db.raw(
      `INSERT INTO app_audit_events (at, actor_id, actor_name, ip, action, target_type, target_id, target_label, details)
       SELECT now() - make_interval(secs => ? - g),
              1 + g % ?, 'Compte ' || (1 + g % ?), '198.51.100.' || (g % 250),
              (ARRAY['page.updated', 'page.published', 'user.updated', 'auth.login', 'role.updated'])[1 + g % 5],
              CASE WHEN g % 2 = 0 THEN 'page' WHEN g % 10 IN (1, 3, 7) THEN 'user' ELSE 'role' END,
              CASE WHEN g % 2 = 0 THEN (1 + (g / 2) % ?)::text ELSE (1 + g % 5000)::text END,
              'Cible ' || g, '{"fields": ["title"]}'
       FROM generate_series(1, ?) g`,
      [EVENTS, ACTORS, ACTORS, PAGES, EVENTS],
    );
    const role = await ctx.db('app_auth_roles').where({ name: 'admin' }).first('id');
    const [admin] = await ctx
      .db('app_auth_users')
      .insert({ email: 'admin@example.com', name: 'Admin', role_id: role!.id, email_verified: true })
      .returning('id');
    await ctx.db.raw('ANALYZE');
    const seededIn = Date.now() - seedStart;
    const sid = await createSession(ctx, admin.id, { ip: '127.0.0.1', userAgent: 'bench' });
    const cookie = `${SESSION_COOKIE}=${encodeURIComponent('s:' + signature.sign(sid, ctx.config.sessionSecret))}`;

    // SQL statements per request through the app (the session store goes through knex too).
    let statements = 0;
    ctx.db.on('query', () => void statements++);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/app/api/audit`;
    await bare.connect();

    // node:http with one kept-alive socket: the client's own CPU stays small beside the server's.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const fetchJson = (url: string): Promise<unknown> =>
      new Promise((resolve, reject) => {
        http
          .get(url, { agent, headers: { cookie } }, (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              if (response.statusCode !== 200) reject(new Error(`${url}: ${response.statusCode} ${text}`));
              else resolve(JSON.parse(text));
            });
          })
          .on('error', reject);
      });
    const get = async (query: string) => (await fetchJson(`${base}?${query}`)) as { items: unknown[]; next_cursor: string | null };
    // What listAuditEvents sends (one more row than asked tells whether a next page exists).
    const sql = (where: string) => `SELECT * FROM app_audit_events WHERE ${where} ORDER BY id DESC LIMIT 51`;
    const byActor = (index: number) => get(`actor_id=${pick(index, ACTORS)}&limit=50`);
    const byPage = (index: number) => get(`target_type=page&target_id=${pick(index, PAGES)}&limit=50`);
    const cursors = { actor: [] as string[], page: [] as string[] };

    // Warm-up: connections, plans, the indexes' upper levels.
    for (let index = 0; index < 50; index++) {
      await byActor(index);
      await byPage(index);
    }

    const rows: Row[] = [];
    const run = async (label: string, count: number, work: (index: number) => Promise<number>) => {
      if (count === 0) throw new Error(`${label}: nothing to measure`);
      statements = 0;
      const cpu = process.cpuUsage();
      const { timings, items } = await timed(count, work);
      const used = process.cpuUsage(cpu);
      rows.push({
        ...summarize(label, timings, items),
        statements: label.startsWith('sql:') ? 1 : Math.round((statements / count) * 100) / 100,
        cpuMs: Math.round(((used.user + used.system) / 1000 / count) * 100) / 100,
      });
    };
    // The app's floor: another authenticated JSON read of three statements (session, user,
    // the permission catalogue), so the difference is the listing's own cost.
    await run('app: GET /app/api/permissions (floor)', requests, async () => {
      await fetchJson(base.replace(/audit$/, 'permissions'));
      return 0;
    });
    await run("app: one actor's latest 50", requests, async (index) => {
      const page = await byActor(index);
      if (page.next_cursor) cursors.actor.push(page.next_cursor);
      return page.items.length;
    });
    await run("sql: one actor's latest 50", requests, async (index) => (await bare.query(sql('actor_id = $1'), [pick(index, ACTORS)])).rowCount ?? 0);
    await run("app: one page's history", requests, async (index) => {
      const page = await byPage(index);
      if (page.next_cursor) cursors.page.push(page.next_cursor);
      return page.items.length;
    });
    await run(
      "sql: one page's history",
      requests,
      async (index) => (await bare.query(sql(`target_type = 'page' AND target_id = $1`), [String(pick(index, PAGES))])).rowCount ?? 0,
    );
    await run("app: actor's next 50 (cursor)", Math.min(requests, cursors.actor.length), async (index) => {
      return (await get(`actor_id=${pick(index, ACTORS)}&limit=50&cursor=${cursors.actor[index]}`)).items.length;
    });
    await run("app: page's next 50 (cursor)", Math.min(requests, cursors.page.length), async (index) => {
      return (await get(`target_type=page&target_id=${pick(index, PAGES)}&limit=50&cursor=${cursors.page[index]}`)).items.length;
    });
    agent.destroy();
    server.close();

    // The plans, and the time the server itself spends on each statement.
    for (const [label, where, value] of [
      ["one actor's latest 50", 'actor_id = $1', 500],
      ["one page's history", `target_type = 'page' AND target_id = $1`, '2500'],
    ] as const) {
      const { rows: plan } = await bare.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql(where)}`, [value]);
      const lines = plan.map((row) => row['QUERY PLAN']);
      const scan = lines
        .find((line) => /Scan/.test(line))
        ?.trim()
        .replace(/\s+\(cost.*$/, '');
      const execution = lines.find((line) => /^Execution Time/.test(line));
      console.log(`plan, ${label}: ${scan}; ${execution}`);
    }
    const count = await ctx.db('app_audit_events').count({ n: '*' }).first();
    console.log(
      `\naudit log: ${Number(count?.n).toLocaleString('en')} events seeded in ${(seededIn / 1000).toFixed(1)} s; ${requests} sequential requests per line (ms)\n`,
    );
    console.table(
      rows.map((row) => ({
        '': row.label,
        p50: row.p50,
        p99: row.p99,
        max: row.max,
        mean: row.mean,
        'items/answer': row.items,
        'SQL/request': row.statements,
        'CPU ms/request': row.cpuMs,
      })),
    );
    const appRows = rows.filter((row) => row.label.startsWith('app:') && !row.label.endsWith('(floor)'));
    const worst = Math.max(...appRows.map((row) => row.p99));
    console.log(`\nworst p99 through the app: ${worst} ms (target < ${TARGET_P99_MS} ms): ${worst < TARGET_P99_MS ? 'OK' : 'OVER TARGET'}`);
    if (worst >= TARGET_P99_MS) process.exitCode = 1;
  } finally {
    await bare.end().catch(() => undefined);
    await closeApp(app);
    await database.cleanup();
  }
}

await main();
