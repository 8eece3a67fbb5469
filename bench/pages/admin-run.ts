// Benchmark of the admin page screens (issue: hardening, item 16). On a tree of 100,000
// pages (depth up to 20), plus 60 siblings beside each page of one depth-20 path (so
// opening its leaf shows 21 full levels, the largest tree screen), against the real
// application in its own process (production settings), logged in as an
// administrator: each screen requested one after the other
// (after a warm-up), reporting p50/p99/max time and the size of the HTML. Target: every
// screen under 300 ms and 500 kB. Then the tree screens of a role with a grant on one
// section only (the depth-20 path's root), to compare with the administrator's.
//
//   npx tsx bench/pages/admin-run.ts [--requests 50] [--pages 100000] [--node <path>]
//   (BENCH_REQUESTS, BENCH_PAGES, BENCH_NODE work too; the database is a throw-away one,
//   see bench/support.ts.)
import signature from 'cookie-signature';
import pg from 'pg';
import { closeApp, createApp } from '../../app.js';
import { loadConfig } from '../../lib/config.js';
import { SESSION_COOKIE } from '../../middleware/session.js';
import { createSession } from '../../models/auth/sessions.js';
import { grantOnPage } from '../../models/pages/grants.js';
import { option, scratchDatabase } from '../support.js';
import { seedPageTree } from './seed.js';
import { nodeVersion, startServer, stopServer, type RunningServer } from './servers.js';

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const requests = Number(option('requests', 'BENCH_REQUESTS', '50'));
const TOTAL_PAGES = Number(option('pages', 'BENCH_PAGES', '100000'));
// app-server.ts's secret: the cookie is signed here, the session row written here.
const SESSION_SECRET = 'bench-session-secret-0123456789-0123456789';

/**
 * The worst case of the tree screen: 60 more siblings beside every page of the depth-20
 * path (1,200 pages), so opening its leaf fills every one of the 21 levels.
 */
async function addSiblingsAlong(databaseUrl: string, chain: number[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const parents = [null, ...chain.slice(0, -1)];
    for (const [depth, parent] of parents.entries()) {
      await client.query(
        `INSERT INTO app_pages (parent_id, title, slug) SELECT $1::int, 'Voisin ' || $2::int || '-' || g, 'voisin-' || $2::int || '-' || g FROM generate_series(1, 60) g`,
        [parent, depth + 1],
      );
    }
    await client.query('ANALYZE app_pages');
  } finally {
    await client.end();
  }
}

/**
 * Session cookies written through the application's own models: an administrator's, and
 * one of a role holding `admin.access` only and a grant of pages.manage on `section`
 * (issue 26: a team that writes one section of the tree).
 */
async function sessionCookies(databaseUrl: string, dataDir: string, section: number): Promise<{ admin: string; sectionEditor: string }> {
  const app = createApp(
    loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      SESSION_SECRET,
      BASE_URL: 'http://bench.local',
      MAIL_OUTBOX: 'true',
      LOG_LEVEL: 'silent',
    }),
  );
  const ctx = app.locals.ctx;
  const cookieOf = async (email: string, roleId: number) => {
    const [user] = await ctx.db('app_auth_users').insert({ email, name: email, role_id: roleId, email_verified: true }).returning('id');
    const sid = await createSession(ctx, user.id, { ip: '127.0.0.1', userAgent: 'bench' });
    return `${SESSION_COOKIE}=${encodeURIComponent('s:' + signature.sign(sid, SESSION_SECRET))}`;
  };
  try {
    const role = await ctx.db('app_auth_roles').where({ name: 'admin' }).first('id');
    if (!role) throw new Error('no role "admin": were the migrations run?');
    const [sectionRole] = await ctx.db('app_auth_roles').insert({ name: 'section-editor', label: 'Rubrique', description: '', system: false }).returning('id');
    await ctx.db('app_auth_role_permissions').insert({ role_id: sectionRole.id, permission_key: 'admin.access' });
    await grantOnPage(ctx, section, sectionRole.id, ['pages.manage', 'pages.publish'], null);
    return { admin: await cookieOf('admin@example.com', role.id), sectionEditor: await cookieOf('section@example.com', sectionRole.id) };
  } finally {
    await closeApp(app);
  }
}

interface Timing {
  status: number;
  bytes: number;
  p50: number;
  p99: number;
  max: number;
}

async function time(url: string, cookie: string): Promise<Timing> {
  const once = async () => {
    const started = performance.now();
    const res = await fetch(url, { headers: { cookie } });
    const body = await res.arrayBuffer();
    return { ms: performance.now() - started, status: res.status, bytes: body.byteLength };
  };
  for (let i = 0; i < 3; i++) await once(); // warm-up
  const runs = [];
  for (let i = 0; i < requests; i++) runs.push(await once());
  const sorted = runs.map((run) => run.ms).sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { status: runs[0].status, bytes: Math.max(...runs.map((run) => run.bytes)), p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
}

async function main(): Promise<void> {
  console.log(`server on Node ${await nodeVersion(nodeBinary)}; ${requests} requests per screen, one at a time, after 3 of warm-up`);
  const database = await scratchDatabase('pages-admin-bench');
  let server: RunningServer | undefined;
  try {
    const tree = await seedPageTree(database.url, TOTAL_PAGES);
    await addSiblingsAlong(database.url, tree.chain);
    // The section: the depth-1 page of the depth-20 path (its subtree holds the widest levels).
    const cookies = await sessionCookies(database.url, database.dataDir, tree.chain[0]);
    server = await startServer(nodeBinary, 'app-server.ts', { DATABASE_URL: database.url, BENCH_DATA_DIR: database.dataDir, NODE_ENV: 'production' });
    const base = `http://127.0.0.1:${server.port}`;
    const [root] = tree.chain;
    const leaf = tree.chain[tree.chain.length - 1];
    const screens: Array<[string, string]> = [
      ['tree: root pages', '/admin/pages'],
      ['tree: opened at a depth-20 page (full levels)', `/admin/pages?open=${leaf}`],
      ['tree: a root opened, its children page 2', `/admin/pages?open=${root}&page=2`],
      ['tree: search «page 4242»', '/admin/pages?q=page%204242'],
      ['tree: search «page» (all match)', '/admin/pages?q=page'],
      ['tree: public pages, page 500', '/admin/pages?visibility=public&page=500'],
      ['page form: depth-20 page', `/admin/pages/${leaf}`],
      ['page form: parent search «page 1»', `/admin/pages/${leaf}?parent_q=page%201`],
      ['page form: a root, parent search «page»', `/admin/pages/${root}?parent_q=page`],
      ['new page form: parent search «page 99»', `/admin/pages/new?parent=${tree.chain[4]}&parent_q=page%2099`],
      ['parent search in JSON «page 1»', `/admin/pages/parent-candidates?q=page%201&exclude=${root}`],
      ['delete confirmation: a root (subtree counted)', `/admin/pages/${root}/delete`],
    ];
    // The same tree screens for a role that writes one section only (a grant on the path's root).
    const sectionScreens: Array<[string, string]> = [
      ['section role: tree (its section)', '/admin/pages'],
      ['section role: opened at the depth-20 page', `/admin/pages?open=${leaf}`],
      ['section role: search «page 4242»', '/admin/pages?q=page%204242'],
      ['section role: search «page» (all match)', '/admin/pages?q=page'],
      ['section role: page form, depth-20 page', `/admin/pages/${leaf}`],
    ];
    console.log('\nscreen                                          status  p50 ms  p99 ms  max ms      bytes  < 300 ms, < 500 kB');
    let failed = 0;
    for (const [label, path, cookie] of [
      ...screens.map(([label, path]) => [label, path, cookies.admin]),
      ...sectionScreens.map(([label, path]) => [label, path, cookies.sectionEditor]),
    ]) {
      const t = await time(base + path, cookie);
      const ok = t.status === 200 && t.p99 < 300 && t.bytes < 500_000;
      if (!ok) failed++;
      console.log(
        `${label.padEnd(46)}  ${String(t.status).padStart(6)}  ${t.p50.toFixed(1).padStart(6)}  ${t.p99.toFixed(1).padStart(6)}  ${t.max.toFixed(1).padStart(6)}  ${String(t.bytes).padStart(9)}  ${ok ? 'yes' : 'NO'}`,
      );
    }
    console.log(failed ? `\n${failed} screen(s) over the target` : '\nevery screen under the target');
  } finally {
    if (server) await stopServer(server.child);
    await database.cleanup();
  }
}

await main();
