// @apart: starts PostgreSQL clusters, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
// Read replicas (DATABASE_READ_URL) against a real streaming replica of a throw-away
// primary (test/support/replica.ts). Public reads go to the replica; writes, other
// reads and reads inside a transaction go to the primary; while the replica's replay is
// paused (pg_wal_replay_pause()) a committed change is still visible on the site at
// once, with the read cache on or off, and the cache never keeps the replica's stale answer.
import { once } from 'node:events';
import os from 'node:os';
import { expect } from 'chai';
import request from 'supertest';
import pg from 'pg';
import { loadConfig } from '../../lib/config.js';
import { createKnex } from '../../lib/db.js';
import { createLogger } from '../../lib/logger.js';
import { migrateLatest } from '../../lib/migrations.js';
import { testMigrationDirectories } from '../support/modules.js';
import { inTransaction, type AppContext } from '../../lib/context.js';
import { resolvePublicPage } from '../../models/pages/public.js';
import { updatePage } from '../../models/pages/pages.js';
import { closeTestApp, contextOf, createTestApp, type App } from '../support/app.js';
import { findPostgresBinaries, startReplicaPair, type ReplicaPair } from '../support/replica.js';
import { makePage, userWith } from './helpers.js';

const byPath = (path: string) => `/app/api/pages/by-path?path=${path}`;

async function sql(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Resolves once the app hears the changes (its listener runs even with the cache off). */
async function hearing(ctx: AppContext): Promise<void> {
  if (!ctx.publicCache.hearsChanges) await once(ctx.publicCache.events, 'listening', { signal: AbortSignal.timeout(10_000) });
}

/** Until the replica has replayed everything the primary has written so far. */
async function caughtUp(pair: ReplicaPair): Promise<void> {
  const [{ lsn }] = await sql(pair.primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn');
  for (let attempt = 0; attempt < 500; attempt++) {
    const [{ done }] = await sql(pair.replicaUrl, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]);
    if (done) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the replica did not catch up');
}

/** A title changed on the primary with every trigger off: no notification, so no process knows. */
async function silentRetitle(pair: ReplicaPair, id: number, title: string): Promise<void> {
  const client = new pg.Client({ connectionString: pair.primaryUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL session_replication_role = replica`);
    await client.query('UPDATE app_pages SET title = $1 WHERE id = $2', [title, id]);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

describe('read replica: public reads on a streaming replica, never older than a change', function () {
  this.timeout(60_000);
  const binaries = findPostgresBinaries();
  let pair: ReplicaPair | undefined;
  const apps: App[] = [];

  before(async function () {
    if (!binaries) {
      console.warn('\n  !!! read-replica tests SKIPPED: no PostgreSQL binaries (initdb, pg_ctl, postgres) on this machine !!!\n');
      this.skip();
    }
    pair = await startReplicaPair(binaries);
    const knex = createKnex(pair.primaryUrl, { poolMax: 2, logger: createLogger('warn') });
    try {
      await migrateLatest(knex, { directories: testMigrationDirectories() });
    } finally {
      await knex.destroy();
    }
  });

  after(async () => {
    for (const app of apps) await closeTestApp(app);
    if (pair) {
      await sql(pair.replicaUrl, 'SELECT pg_wal_replay_resume()').catch(() => undefined);
      await pair.stop();
    }
  });

  afterEach(async () => {
    if (pair) await sql(pair.replicaUrl, 'SELECT pg_wal_replay_resume()').catch(() => undefined);
  });

  function replicaApp(env: Record<string, string> = {}): { app: App; ctx: AppContext } {
    const app = createTestApp({ DATABASE_URL: pair!.primaryUrl, DATABASE_READ_URL: pair!.replicaUrl, ...env });
    apps.push(app);
    return { app, ctx: contextOf(app) };
  }

  it('is built by the method this machine allows, and streams', () => {
    expect(pair!.method).to.equal(binaries!.method);
    console.log(`      (replica made with ${pair!.method} from ${binaries!.bin})`);
  });

  it('sends public reads to the replica, and writes, other reads and reads in a transaction to the primary', async () => {
    const { app, ctx } = replicaApp({ PAGE_CACHE_MB: '0' });
    await hearing(ctx);
    const admin = await userWith(ctx, 'admin');
    const page = await makePage(ctx, { title: 'Original', slug: 'route-test' });
    await caughtUp(pair!);
    const warm = await request(app).get(byPath('route-test'));
    expect(warm.status).to.equal(200);
    expect(warm.body.title).to.equal('Original');

    // The replica stops replaying; a change nobody is told of reaches only the primary.
    await sql(pair!.replicaUrl, 'SELECT pg_wal_replay_pause()');
    await silentRetitle(pair!, page.id, 'Primaire seulement');

    const before = { ...ctx.readReplica!.stats };
    const json = await request(app).get(byPath('route-test'));
    expect(json.status).to.equal(200);
    expect(json.body.title, 'by-path read the replica').to.equal('Original');
    const html = await request(app).get('/route-test');
    expect(html.status).to.equal(200);
    expect(html.text).to.contain('Original').and.not.contain('Primaire seulement');
    const list = await request(app).get('/app/api/pages?parent=root');
    expect(list.body.items.map((item: { title: string }) => item.title)).to.include('Original');
    expect(ctx.readReplica!.stats.replicaReads - before.replicaReads).to.equal(3);
    expect(ctx.readReplica!.stats.primaryReads - before.primaryReads).to.equal(0);

    // The admin API reads the primary.
    const adminRead = await request(app).get(`/app/api/admin/pages/${page.id}`).set('Cookie', admin.cookie);
    expect(adminRead.status).to.equal(200);
    expect(adminRead.body.title).to.equal('Primaire seulement');
    // A public read inside a transaction reads the primary too.
    const inside = await inTransaction(ctx, (tx) => resolvePublicPage(tx, ['route-test']));
    expect(inside?.page.title).to.equal('Primaire seulement');
    // And a write goes to the primary (the replica is read-only: it would fail there).
    await inTransaction(ctx, (tx) => updatePage(tx, page.id, { title: 'Écrit' }));
    const [row] = await sql(pair!.primaryUrl, 'SELECT title FROM app_pages WHERE id = $1', [page.id]);
    expect(row.title).to.equal('Écrit');
  });

  for (const cache of ['0', '8']) {
    it(`shows a change at once while the replica lags (PAGE_CACHE_MB=${cache}), then reads the replica again once it has replayed it`, async () => {
      const { app, ctx } = replicaApp({ PAGE_CACHE_MB: cache });
      await hearing(ctx);
      const slug = `lag-${cache}`;
      const page = await makePage(ctx, { title: 'Avant', slug });
      await caughtUp(pair!);
      expect((await request(app).get(byPath(slug))).body.title).to.equal('Avant');
      expect((await request(app).get(`/${slug}`)).text).to.contain('Avant');

      await sql(pair!.replicaUrl, 'SELECT pg_wal_replay_pause()');
      await updatePage(ctx, page.id, { title: 'Après' });
      const [replicaRow] = await sql(pair!.replicaUrl, 'SELECT title FROM app_pages WHERE id = $1', [page.id]);
      expect(replicaRow.title, 'the replica lags').to.equal('Avant');

      const before = { ...ctx.readReplica!.stats };
      for (let round = 0; round < 2; round++) {
        // The second round is answered by the cache when it is on: it must hold the new answer.
        const json = await request(app).get(byPath(slug));
        expect(json.status).to.equal(200);
        expect(json.body.title).to.equal('Après');
        const html = await request(app).get(`/${slug}`);
        expect(html.text).to.contain('Après').and.not.contain('Avant');
      }
      const stats = { ...ctx.readReplica!.stats };
      expect(stats.replicaReads - before.replicaReads, 'no read went to the lagging replica').to.equal(0);
      expect(stats.primaryReads - before.primaryReads).to.equal(cache === '0' ? 4 : 2);
      if (cache !== '0') expect(ctx.publicCache.stats.entries).to.be.at.least(2);

      await sql(pair!.replicaUrl, 'SELECT pg_wal_replay_resume()');
      await caughtUp(pair!);
      await updatePage(ctx, page.id, { title: 'Rejoué' });
      const again = await request(app).get(byPath(slug));
      expect(again.body.title).to.equal('Rejoué');
      expect(ctx.readReplica!.stats.replicaReads - stats.replicaReads, 'the replica caught up within the wait').to.equal(1);
    });
  }

  it('shows a change committed by another process while the replica lags, once this one has heard of it', async () => {
    const { app, ctx } = replicaApp({ PAGE_CACHE_MB: '8' });
    const writerApp = createTestApp({ DATABASE_URL: pair!.primaryUrl });
    apps.push(writerApp);
    const writer = contextOf(writerApp);
    await hearing(ctx);
    const page = await makePage(writer, { title: 'Autre avant', slug: 'other-process' });
    await caughtUp(pair!);
    expect((await request(app).get(byPath('other-process'))).body.title).to.equal('Autre avant');

    await sql(pair!.replicaUrl, 'SELECT pg_wal_replay_pause()');
    const heard = once(ctx.publicCache.events, 'change', { signal: AbortSignal.timeout(10_000) });
    await updatePage(writer, page.id, { title: 'Autre après' });
    await heard;
    // The change heard may be an earlier commit's: a round trip makes sure this one's was handled.
    await ctx.publicCache.caughtUp();
    const json = await request(app).get(byPath('other-process'));
    expect(json.body.title).to.equal('Autre après');
    expect((await request(app).get('/other-process')).text).to.contain('Autre après');
  });

  it('reads the primary while it cannot hear the changes (listener lost)', async () => {
    const { app, ctx } = replicaApp({ PAGE_CACHE_MB: '0' });
    await hearing(ctx);
    const page = await makePage(ctx, { title: 'Écoute', slug: 'listener-lost' });
    await caughtUp(pair!);
    await sql(pair!.replicaUrl, 'SELECT pg_wal_replay_pause()');
    await silentRetitle(pair!, page.id, 'Écoute perdue');
    const lost = once(ctx.publicCache.events, 'lost', { signal: AbortSignal.timeout(10_000) });
    await sql(pair!.primaryUrl, 'SELECT pg_terminate_backend($1)', [ctx.publicCache.listenerPid]);
    await lost;
    const json = await request(app).get(byPath('listener-lost'));
    expect(json.body.title).to.equal('Écoute perdue');
  });

  // Last: the replica does not come back.
  it('answers the public reads from the primary when the replica is down', async () => {
    const { app, ctx } = replicaApp({ PAGE_CACHE_MB: '0' });
    await hearing(ctx);
    await makePage(ctx, { title: 'Sans réplique', slug: 'replica-down' });
    await caughtUp(pair!);
    expect((await request(app).get(byPath('replica-down'))).body.title).to.equal('Sans réplique');
    pair!.stopReplica();
    for (const path of [byPath('replica-down'), '/replica-down', '/app/api/pages?parent=root']) {
      const res = await request(app).get(path);
      expect(res.status, path).to.equal(200);
      expect(res.text, path).to.contain('Sans réplique');
    }
  });
});

describe('read replica and listener settings', () => {
  const base = { NODE_ENV: 'test', DATA_DIR: os.tmpdir(), SESSION_SECRET: 'x'.repeat(40) };
  it('takes DATABASE_READ_URL and DATABASE_LISTEN_URL beside DATABASE_URL, and leaves them unset by default', () => {
    const config = loadConfig({
      ...base,
      DATABASE_URL: 'postgres://site@pooler:6432/site',
      DATABASE_READ_URL: 'postgres://site@replica:5432/site',
      DATABASE_LISTEN_URL: 'postgres://site@primary:5432/site',
    });
    expect(config.databaseReadUrl).to.equal('postgres://site@replica:5432/site');
    expect(config.databaseListenUrl).to.equal('postgres://site@primary:5432/site');
    const plain = loadConfig({ ...base, DATABASE_URL: 'postgres://site@db:5432/site' });
    expect(plain.databaseReadUrl).to.equal(undefined);
    expect(plain.databaseListenUrl).to.equal(undefined);
  });

  it('refuses them without DATABASE_URL, or when they are not PostgreSQL URLs, naming the variable', () => {
    expect(() => loadConfig({ ...base, DATABASE_READ_URL: 'postgres://site@replica/site' })).to.throw(/DATABASE_READ_URL needs DATABASE_URL/);
    expect(() => loadConfig({ ...base, DATABASE_LISTEN_URL: 'postgres://site@primary/site' })).to.throw(/DATABASE_LISTEN_URL needs DATABASE_URL/);
    expect(() => loadConfig({ ...base, DATABASE_URL: 'postgres://site@db/site', DATABASE_READ_URL: 'mysql://replica/site' })).to.throw(/DATABASE_READ_URL/);
  });
});
