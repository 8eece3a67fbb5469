// @serial: spawns app processes and asserts durations (run at normal priority, the rest of the suite at nice 19 beside them: npm test, test/support/run.ts)
// The public read cache across real processes: two servers (app.ts, as `node dist/app.js`
// runs) on the test database, the pages written by this process. Each server learns of
// a change only through its notification, and must never answer the old content once it
// has answered the new one; a server whose listening connection is killed must not answer
// stale content either, and caches again once it listens again.
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { deletePage } from '../../models/pages/page-delete.js';
import { insertMedia, updateMedia } from '../../models/pages/media.js';
import { updatePage } from '../../models/pages/pages.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { adminQuery, testDatabase } from '../support/database.js';
import { spawnListeningServers, stopServers, type ServerProcess } from '../support/server-process.js';
import { makeChain, makePage } from './helpers.js';

const TOKEN = 'metrics-token-for-the-cache-test-0123456789';
const SECRET = 'test-session-secret-that-is-long-enough-0123456789';

/** A step that checks another address of the previous change. */
const nothing = () => Promise.resolve();

interface Answer {
  status: number;
  text: string;
}

async function get(server: ServerProcess, path: string): Promise<Answer> {
  // A redirect is an answer of its own here (an old path answers 301), never followed.
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, { redirect: 'manual' });
  return { status: response.status, text: await response.text() };
}

/** The statements a server has run for this route so far (its /metrics). */
async function statementsOf(server: ServerProcess, route: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${server.port}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  const text = await response.text();
  const line = text.split('\n').find((row) => row.startsWith(`site_db_statements_per_request_sum{route="${route}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/**
 * Reads `path` from `server` until `isNew` holds (2 s at most), then `after` times more:
 * each of those must hold too (never the old content after the new). Returns the wait in ms.
 */
async function untilNew(server: ServerProcess, path: string, isNew: (answer: Answer) => boolean, after = 20): Promise<number> {
  const start = performance.now();
  for (;;) {
    const answer = await get(server, path);
    if (isNew(answer)) break;
    if (performance.now() - start > 2000) throw new Error(`${path} on port ${server.port} still old after 2 s: ${answer.status} ${answer.text.slice(0, 200)}`);
  }
  const waited = performance.now() - start;
  for (let read = 0; read < after; read++) {
    const answer = await get(server, path);
    expect(isNew(answer), `${path} on port ${server.port}, read ${read} after the new content`).to.equal(true);
  }
  return waited;
}

describe('public read cache across two server processes', function () {
  this.timeout(120_000);
  let servers: ServerProcess[] = [];
  let ctx: AppContext;

  before(async () => {
    ctx = contextOf(createTestApp());
    const env = {
      DATABASE_URL: testDatabase().url,
      DATA_DIR: testDatabase().scratchDir,
      SESSION_SECRET: SECRET,
      METRICS_TOKEN: TOKEN,
      PASSWORD_HASH_COST: '4',
      PASSWORD_HASH_THREADS: '1',
    };
    servers = await spawnListeningServers(env);
  });
  after(async () => {
    await stopServers(servers);
  });
  beforeEach(() => resetData(ctx));

  it('serves each kind of change everywhere, and never the old content after the new', async () => {
    const [p1, p2, p3] = await makeChain(ctx, 3, 'p', { blocks: [{ type: 'paragraph', text: 'Version 1' }] });
    const [q1] = await makeChain(ctx, 1, 'q');
    const media = await insertMedia(
      ctx,
      { filename: 'media/0123456789abcdef0123456789abcdef.png', original_name: 'a.png', mime_type: 'image/png', size: 10, alt: 'Alt 1' },
      null,
    );
    const gallery = await makePage(ctx, { title: 'Galerie', slug: 'galerie', blocks: [{ type: 'image', media_id: media.id }] });
    const warm = ['/app/api/pages/by-path?path=p1/p2/p3', '/p1/p2/p3', '/app/api/pages?parent=p1', '/galerie', '/p1/nouvelle', '/q1/p2/p3', '/sitemap-1.xml'];
    for (const server of servers) for (const path of warm) await get(server, path);

    const kinds: Array<{ name: string; change: () => Promise<unknown>; path: string; isNew: (answer: Answer) => boolean }> = [
      {
        name: 'content',
        change: () => updatePage(ctx, p3, { blocks: [{ type: 'paragraph', text: 'Version 2' }] }),
        path: '/app/api/pages/by-path?path=p1/p2/p3',
        isNew: (answer) => answer.text.includes('Version 2'),
      },
      { name: 'content (HTML)', change: nothing, path: '/p1/p2/p3', isNew: (answer) => answer.text.includes('Version 2') },
      { name: 'media', change: () => updateMedia(ctx, media.id, { alt: 'Alt 2' }), path: '/galerie', isNew: (answer) => answer.text.includes('Alt 2') },
      { name: 'new page', change: () => makePage(ctx, { title: 'Nouvelle', parent_id: p1 }), path: '/p1/nouvelle', isNew: (answer) => answer.status === 200 },
      { name: 'visibility', change: () => updatePage(ctx, p2, { visibility: 'private' }), path: '/p1/p2/p3', isNew: (answer) => answer.status === 404 },
      {
        name: 'visibility (list)',
        change: nothing,
        path: '/app/api/pages?parent=p1',
        isNew: (answer) => !answer.text.includes('"slug":"p2"'),
      },
      {
        name: 'move (new path)',
        change: () => updatePage(ctx, p2, { parent_id: q1, visibility: 'public' }),
        path: '/q1/p2/p3',
        isNew: (answer) => answer.status === 200,
      },
      { name: 'move (old path)', change: nothing, path: '/app/api/pages/by-path?path=p1/p2/p3', isNew: (answer) => answer.status === 301 },
      { name: 'delete', change: () => deletePage(ctx, gallery.id), path: '/galerie', isNew: (answer) => answer.status === 410 },
      {
        name: 'sitemap',
        change: nothing,
        path: '/sitemap-1.xml',
        isNew: (answer) => !answer.text.includes('/galerie') && answer.text.includes('/q1/p2/p3'),
      },
    ];
    for (const kind of kinds) {
      await kind.change();
      for (const server of servers) await untilNew(server, kind.path, kind.isNew);
    }
  });

  it('after 100 changes committed elsewhere, both serve each one within a bounded time and never go back', async () => {
    const [p1] = await makeChain(ctx, 1);
    const waits: number[] = [];
    for (let version = 1; version <= 100; version++) {
      await updatePage(ctx, p1, { blocks: [{ type: 'paragraph', text: `Version ${version} ` }] });
      const paths = version % 2 ? '/app/api/pages/by-path?path=p1' : '/p1';
      for (const server of servers) waits.push(await untilNew(server, paths, (answer) => answer.text.includes(`Version ${version} `), 3));
    }
    waits.sort((x, y) => x - y);
    const p99 = waits[Math.ceil(waits.length * 0.99) - 1];
    console.log(
      `      invalidation seen after p50 ${waits[waits.length >> 1].toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${waits[waits.length - 1].toFixed(1)} ms`,
    );
    expect(p99).to.be.below(1000);
  });

  it('never answers stale content when its listening connection is killed, and caches again once it listens again', async () => {
    const [p1] = await makeChain(ctx, 1, 'p', { blocks: [{ type: 'paragraph', text: 'Avant' }] });
    const route = '/app/api/pages/by-path';
    const path = '/app/api/pages/by-path?path=p1';
    for (const server of servers) {
      await get(server, path);
      const before = await statementsOf(server, route);
      expect((await get(server, path)).text).to.include('Avant');
      expect(await statementsOf(server, route), 'a cached read').to.equal(before);
    }
    const ours = new Set([ctx.publicCache.listenerPid]);
    const { rows } = await ctx.db.raw<{ rows: Array<{ pid: number }> }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = 'site-core-listener' AND datname = current_database()`,
    );
    const theirs = rows.map((row) => row.pid).filter((pid) => !ours.has(pid));
    expect(theirs.length).to.be.at.least(2);
    const relistened = servers.map((server) => server.output().split('listening again').length);
    await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN (${theirs.join(', ')})`);

    // Written while their listeners are gone: each answers it from its first read on.
    await updatePage(ctx, p1, { blocks: [{ type: 'paragraph', text: 'Pendant' }] });
    for (const server of servers) {
      for (let read = 0; read < 10; read++)
        expect((await get(server, path)).text)
          .to.include('Pendant')
          .and.not.include('Avant');
    }
    for (const [index, server] of servers.entries()) {
      const deadline = Date.now() + 15_000;
      while (server.output().split('listening again').length === relistened[index] && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(server.output().split('listening again').length, 'reconnected').to.be.greaterThan(relistened[index]);
      await get(server, path);
      const before = await statementsOf(server, route);
      expect((await get(server, path)).text).to.include('Pendant');
      expect(await statementsOf(server, route), 'cached again').to.equal(before);
    }
    await updatePage(ctx, p1, { blocks: [{ type: 'paragraph', text: 'Après' }] });
    for (const server of servers) await untilNew(server, path, (answer) => answer.text.includes('Après'));
  });
});
