// Settings and the public read cache, with two applications on one database (A writes,
// B reads and learns of A's writes only through the notifications, as another process
// would): a change made through A is on B's pages within a second, a cached page hit
// still runs no statement, and once read the settings cost no statement on a page
// rendered afresh either (they are kept in memory until the next change).
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { updatePage } from '../../models/pages/pages.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { countStatements, listening, makeChain, notified, settled, userWith } from '../pages/helpers.js';

async function read(ctx: AppContext, app: App, path: string) {
  const { result, count, sql } = await countStatements(ctx, () =>
    request(app)
      .get(path)
      .then((res) => res),
  );
  return { res: result, count, sql };
}

describe('site settings across two applications on one database', () => {
  let appA: App;
  let appB: App;
  let a: AppContext;
  let b: AppContext;
  let admin: { id: number; cookie: string };
  let chain: number[];
  before(async () => {
    appA = createTestApp();
    appB = createTestApp();
    a = contextOf(appA);
    b = contextOf(appB);
    await Promise.all([listening(a), listening(b)]);
  });
  beforeEach(async () => {
    await notified(b, () => resetData(a));
    chain = await makeChain(a, 2, 'p');
    admin = await userWith(a, ['admin.access', 'settings.manage']);
    await settled(b);
  });

  it('shows a title changed through A on B’s cached pages within a second, then serves them again with no statement', async () => {
    for (const path of ['/', '/p1', '/p1/p2', '/robots.txt']) expect((await read(b, appB, path)).res.status, path).to.equal(200);
    for (const path of ['/', '/p1', '/p1/p2', '/robots.txt']) expect((await read(b, appB, path)).count, `${path} cached`).to.equal(0);

    const changed = await request(appA).put('/app/api/admin/settings').set('Cookie', admin.cookie).send({ title: 'Nouveau titre', noindex: true });
    expect(changed.status).to.equal(200);
    const committed = performance.now();
    let seen = false;
    while (performance.now() - committed < 1000) {
      const page = await read(b, appB, '/p1');
      if (page.res.text.includes('<a class="site-name" href="/">Nouveau titre</a>')) {
        seen = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(seen, 'B shows the new title within 1 s').to.equal(true);
    expect((await read(b, appB, '/robots.txt')).res.text).to.equal('User-agent: *\nDisallow: /\n');
    for (const path of ['/', '/p1/p2']) expect((await read(b, appB, path)).res.text, path).to.include('<meta name="robots" content="noindex">');
    for (const path of ['/', '/p1', '/p1/p2', '/robots.txt']) {
      const hit = await read(b, appB, path);
      expect(hit.count, `${path} cached again`).to.equal(0);
      expect(hit.res.text, path).to.not.include('Site de test');
    }
    expect((await a.db('app_site_settings').first())?.title).to.equal('Nouveau titre');
  });

  it('renders a page afresh without reading the settings again while they have not changed', async () => {
    await read(b, appB, '/p1');
    // A change of p2's content alone drops p2's answer, not the settings.
    await notified(b, () => updatePage(a, chain[1], { blocks: [{ type: 'paragraph', text: 'Nouveau texte' }] }));
    const fresh = await read(b, appB, '/p1/p2');
    expect(fresh.res.text).to.include('Nouveau texte');
    expect(fresh.count).to.be.greaterThan(0);
    expect(fresh.sql.filter((sql) => sql.includes('app_site_settings'))).to.deep.equal([]);
  });

  it('reads the settings again after a change, once, in B', async () => {
    await read(b, appB, '/p1');
    await notified(b, () => request(appA).put('/app/api/admin/settings').set('Cookie', admin.cookie).send({ tagline: 'Un slogan' }));
    const first = await read(b, appB, '/p1/p2');
    expect(first.res.text).to.include('<p class="site-tagline">Un slogan</p>');
    expect(first.sql.filter((sql) => sql.includes('app_site_settings'))).to.have.length(1);
    const other = await read(b, appB, '/p1');
    expect(other.res.text).to.include('<p class="site-tagline">Un slogan</p>');
    expect(other.sql.filter((sql) => sql.includes('app_site_settings'))).to.deep.equal([]);
  });

  it('keeps the settings in memory with the cache off (PAGE_CACHE_MB=0): the process still listens, reads them once and again after a change', async () => {
    const off = createTestApp({ PAGE_CACHE_MB: '0' });
    try {
      const ctx = contextOf(off);
      await listening(ctx);
      expect(ctx.publicCache.usable).to.equal(false);
      expect(ctx.publicCache.listenerState).to.equal('listening');
      const first = await read(ctx, off, '/p1');
      expect(first.res.status).to.equal(200);
      expect(first.sql.filter((sql) => sql.includes('app_site_settings'))).to.have.length(1);
      const again = await read(ctx, off, '/p1/p2');
      expect(again.count, 'the page itself is read again: no cache').to.be.greaterThan(0);
      expect(again.sql.filter((sql) => sql.includes('app_site_settings'))).to.deep.equal([]);
      await notified(ctx, () => request(appA).put('/app/api/admin/settings').set('Cookie', admin.cookie).send({ tagline: 'Sans cache' }));
      const changed = await read(ctx, off, '/p1');
      expect(changed.res.text).to.include('<p class="site-tagline">Sans cache</p>');
      expect(changed.sql.filter((sql) => sql.includes('app_site_settings'))).to.have.length(1);
    } finally {
      await closeTestApp(off);
    }
  });
});
