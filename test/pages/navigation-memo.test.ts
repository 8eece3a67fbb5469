// The site-wide facts of a render (the navigation, the menus, the tree's last write) and
// the shown media's freshness are kept in memory by a process that hears every change
// (models/pages/navigation.ts), so a page rendered afresh reads the page itself and
// nothing else once they are held. Two applications on one database: A writes, B reads
// with its public cache off (PAGE_CACHE_MB=0), so every render of B runs its statements
// and only the memory of the facts can spare any; B learns of A's writes only through
// the notifications, as another process would.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { insertMedia, updateMedia } from '../../models/pages/media.js';
import { updatePage } from '../../models/pages/pages.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { countStatements, listening, makeChain, makePage, notified, settled, userWith } from './helpers.js';

async function render(ctx: AppContext, app: App, path: string) {
  const { result, count, sql } = await countStatements(ctx, () =>
    request(app)
      .get(path)
      .then((res) => res),
  );
  return { res: result, count, sql };
}

const readsNavigation = (sql: string[]) => sql.filter((text) => text.includes('app_page_menus_render')).length;
const readsMedia = (sql: string[]) => sql.filter((text) => text.includes('app_pages_media')).length;
/** The statement that reads the shown media's freshness (models/pages/navigation.ts). */
const readsMediaFreshness = (sql: string[]) => sql.filter((text) => text.startsWith('select "id", "updated_at" from "app_pages_media"')).length;

describe('the navigation kept in memory by an uncached process (two applications, B without its cache)', () => {
  let appA: App;
  let appB: App;
  let a: AppContext;
  let b: AppContext;
  let chain: number[];
  before(async () => {
    appA = createTestApp();
    appB = createTestApp({ PAGE_CACHE_MB: '0' });
    a = contextOf(appA);
    b = contextOf(appB);
    await Promise.all([listening(a), listening(b)]);
    expect(b.publicCache.usable, 'B renders every page afresh').to.equal(false);
  });
  beforeEach(async () => {
    await notified(b, () => resetData(a));
    chain = await makeChain(a, 2, 'p');
    await settled(b);
  });
  after(async () => {
    await closeTestApp(appA);
    await closeTestApp(appB);
  });

  it('reads the navigation once, then only the page at each render', async () => {
    const first = await render(b, appB, '/p1');
    expect(first.res.status).to.equal(200);
    expect(readsNavigation(first.sql)).to.equal(1);
    const second = await render(b, appB, '/p1/p2');
    expect(second.res.status).to.equal(200);
    expect(second.res.text).to.include('href="/p1"');
    expect(second.count, second.sql.join('\n')).to.equal(1);
    expect(readsNavigation(second.sql)).to.equal(0);
  });

  it('shows a root page retitled through A at B’s next render, reading the navigation again once', async () => {
    await render(b, appB, '/p1/p2');
    await notified(b, () => updatePage(a, chain[0], { title: 'Rubrique' }));
    const changed = await render(b, appB, '/p1/p2');
    expect(changed.res.text).to.match(/<a [^>]*href="\/p1"[^>]*>Rubrique</);
    expect(readsNavigation(changed.sql)).to.equal(1);
    expect(readsNavigation((await render(b, appB, '/p1/p2')).sql)).to.equal(0);
  });

  it('shows a header menu saved through A at B’s next render', async () => {
    await render(b, appB, '/p1');
    const admin = await userWith(a, 'admin');
    await notified(b, () =>
      request(appA)
        .put('/app/api/admin/menus/header')
        .set('Cookie', admin.cookie)
        .send({ items: [{ label: 'Ailleurs', url: 'https://example.org/ailleurs', children: [] }] })
        .expect(200),
    );
    const changed = await render(b, appB, '/p1');
    expect(changed.res.text).to.include('href="https://example.org/ailleurs"');
    expect(readsNavigation(changed.sql)).to.equal(1);
  });

  it('keeps a media’s freshness until A changes it: Last-Modified then follows the media', async () => {
    const media = await insertMedia(
      a,
      { filename: 'media/0123456789abcdef0123456789abcdef.png', original_name: 'a.png', mime_type: 'image/png', size: 10, alt: 'Avant' },
      null,
    );
    await notified(b, () => makePage(a, { title: 'Galerie', slug: 'galerie', blocks: [{ type: 'image', media_id: media.id }] }));
    const first = await render(b, appB, '/galerie');
    expect(readsMedia(first.sql)).to.be.greaterThan(0);
    expect(readsMediaFreshness(first.sql)).to.equal(1);
    const held = await render(b, appB, '/galerie');
    // The page, then its images' own data (models/pages/media.ts): their freshness is held.
    expect(held.count, held.sql.join('\n')).to.equal(2);
    expect(readsMediaFreshness(held.sql)).to.equal(0);

    // A second later, so that Last-Modified (whole seconds) can tell the media's write apart.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await notified(b, () => updateMedia(a, media.id, { alt: 'Après' }));
    const stored = await a.db<{ id: number; updated_at: Date }>('app_pages_media').where({ id: media.id }).first('updated_at');
    expect(stored).to.not.equal(undefined);
    const changed = await render(b, appB, '/galerie');
    expect(changed.res.text).to.include('Après');
    expect(readsMediaFreshness(changed.sql)).to.equal(1);
    expect(readsNavigation(changed.sql), 'a media changes no navigation').to.equal(0);
    expect(new Date(changed.res.headers['last-modified']).getTime()).to.equal(Math.floor(new Date(stored!.updated_at).getTime() / 1000) * 1000);
  });

  it('shows B’s own write at its very next render, without waiting for anything', async () => {
    await render(b, appB, '/p1/p2');
    for (let round = 1; round <= 10; round++) {
      await updatePage(b, chain[0], { title: `Version ${round}` });
      expect((await request(appB).get('/p1/p2')).text, `round ${round}`).to.match(new RegExp(`<a [^>]*href="/p1"[^>]*>Version ${round}<`));
    }
  });
});
