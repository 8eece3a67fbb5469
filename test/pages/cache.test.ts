// The public read cache, in one process: two applications on one database, A writing,
// B reading. B learns of A's writes only through the notifications (it wrote nothing),
// as another process would; a write through B's own pool is seen by its next read.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { insertMedia, updateMedia } from '../../models/pages/media.js';
import { deletePage } from '../../models/pages/page-delete.js';
import { updatePage } from '../../models/pages/pages.js';
import { ConfigError } from '../../lib/config.js';
import { buildAnswer } from '../../lib/public-cache.js';
import { closeTestApp, contextOf, createTestApp, resetData, testConfig, type App } from '../support/app.js';
import { adminQuery } from '../support/database.js';
import { makeUser, PNG_1X1 } from '../support/fixtures.js';
import { setProfilePicture } from '../../services/profile.js';
import { countStatements, listening, makeChain, makePage, notified, settled, withoutIds } from './helpers.js';

const CACHE_CONTROL = 'public, max-age=0, must-revalidate, s-maxage=0';
const byPath = (path: string) => `/app/api/pages/by-path?path=${path}`;

/** A GET through `app` and the statements it ran on the app's pool. */
async function counted(ctx: AppContext, app: App, path: string, headers: Record<string, string> = {}) {
  const { result, count } = await countStatements(ctx, () =>
    request(app)
      .get(path)
      .set(headers)
      .then((res) => res),
  );
  return { res: result, count };
}

describe('public read cache: invalidated by notifications, never stale', () => {
  let appA: App;
  let appB: App;
  let a: AppContext;
  let b: AppContext;
  before(async () => {
    appA = createTestApp();
    appB = createTestApp();
    a = contextOf(appA);
    b = contextOf(appB);
    await Promise.all([listening(a), listening(b)]);
  });
  // The reset truncates the pages: B empties its cache when told so.
  beforeEach(() => notified(b, () => resetData(a)));

  it('serves a read again from memory: the same bytes, a strong ETag of them, Last-Modified, public Cache-Control, and 304 without a statement', async () => {
    a.clock.set(() => Date.parse('2031-03-04T05:06:07.891Z'));
    await makeChain(a, 2, 'p', { blocks: [{ type: 'paragraph', text: 'Contenu' }] });
    await settled(b);
    for (const path of [byPath('p1/p2'), '/p1/p2']) {
      const first = await counted(b, appB, path);
      expect(first.res.status, path).to.equal(200);
      expect(first.count, path).to.be.greaterThan(0);
      const body = Buffer.from(first.res.text);
      expect(first.res.headers.etag, path).to.equal(`"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`);
      expect(first.res.headers['last-modified'], path).to.equal('Tue, 04 Mar 2031 05:06:07 GMT');
      expect(first.res.headers['cache-control'], path).to.equal(CACHE_CONTROL);

      const again = await counted(b, appB, path);
      expect(again.count, path).to.equal(0);
      expect(again.res.text, path).to.equal(first.res.text);
      expect(again.res.headers.etag, path).to.equal(first.res.headers.etag);

      const conditions: Array<Record<string, string>> = [
        { 'If-None-Match': String(first.res.headers.etag) },
        { 'If-Modified-Since': String(first.res.headers['last-modified']) },
      ];
      for (const headers of conditions) {
        const revalidated = await counted(b, appB, path, headers);
        expect(revalidated.res.status, path).to.equal(304);
        expect(revalidated.count, path).to.equal(0);
        expect(revalidated.res.text ?? '', path).to.equal('');
        expect(revalidated.res.headers.etag, path).to.equal(first.res.headers.etag);
      }
      const otherTag = await counted(b, appB, path, { 'If-None-Match': '"autre"' });
      expect(otherTag.res.status, path).to.equal(200);
      expect(otherTag.count, path).to.equal(0);
    }
    expect(JSON.parse((await request(appB).get(byPath('p1/p2'))).text)).to.include({ title: 'p2', slug: 'p2' });
  });

  it('drops a page whose content changed, and the child lists that show it, keeping its neighbours', async () => {
    const [p1, p2] = await makeChain(a, 2, 'p', { blocks: [{ type: 'paragraph', text: 'Avant' }] });
    await makePage(a, { title: 'Voisine', slug: 'voisine', parent_id: p1 });
    await settled(b);
    const paths = [byPath('p1/p2'), '/p1/p2', '/app/api/pages?parent=p1', byPath('p1/voisine'), byPath('p1')];
    for (const path of paths) expect((await request(appB).get(path)).status, path).to.equal(200);

    await notified(b, () => updatePage(a, p2, { blocks: [{ type: 'paragraph', text: 'Après' }], seo: { description: 'Résumé neuf' } }));
    expect(withoutIds((await request(appB).get(byPath('p1/p2'))).body.blocks)).to.deep.equal([{ type: 'paragraph', text: 'Après' }]);
    expect((await request(appB).get('/p1/p2')).text)
      .to.include('Après')
      .and.not.include('Avant');
    const list = (await request(appB).get('/app/api/pages?parent=p1')).body as { items: Array<{ id: number; updated_at: string }> };
    expect(list.items.find((item) => item.id === p2)!.updated_at).to.equal((await a.db('app_pages').where({ id: p2 }).first())!.updated_at.toISOString());
    for (const path of [byPath('p1/voisine'), byPath('p1')]) expect((await counted(b, appB, path)).count, path).to.equal(0);
  });

  it('hides a subtree made private at once, through the API, the site and the parent’s lists', async () => {
    const [p1, p2] = await makeChain(a, 3);
    const paths = [byPath('p1/p2'), byPath('p1/p2/p3'), '/p1/p2', '/p1/p2/p3', '/app/api/pages?parent=p1', `/app/api/pages?parent=${p2}`, '/p1'];
    for (const path of paths) expect((await request(appB).get(path)).status, path).to.equal(200);

    await notified(b, () => updatePage(a, p2, { visibility: 'private' }));
    for (const path of [byPath('p1/p2'), byPath('p1/p2/p3'), '/p1/p2', '/p1/p2/p3', `/app/api/pages?parent=${p2}`]) {
      expect((await request(appB).get(path)).status, path).to.equal(404);
    }
    expect((await request(appB).get('/app/api/pages?parent=p1')).body.items).to.deep.equal([]);
    expect((await request(appB).get(`/app/api/pages?parent=${p1}`)).body.total).to.equal(0);
    // The parent's own JSON did not change: it stays in memory.
    expect((await counted(b, appB, byPath('p1'))).count).to.equal(1);
    expect((await counted(b, appB, byPath('p1'))).count).to.equal(0);
  });

  it('moves a subtree: its old paths answer 301 to the new ones, which show the page with its new breadcrumbs, both parents’ lists follow', async () => {
    const [a1, a2] = await makeChain(a, 3, 'a');
    const [b1] = await makeChain(a, 1, 'b');
    const before = [byPath('a1/a2'), byPath('a1/a2/a3'), '/a1/a2/a3', byPath('b1/a2/a3'), '/b1/a2/a3', '/app/api/pages?parent=a1', '/app/api/pages?parent=b1'];
    for (const path of before) await request(appB).get(path);

    await notified(b, () => updatePage(a, a2, { parent_id: b1 }));
    for (const path of [byPath('a1/a2'), byPath('a1/a2/a3'), '/a1/a2/a3']) expect((await request(appB).get(path)).status, path).to.equal(301);
    expect((await request(appB).get('/a1/a2/a3')).headers.location).to.equal('/b1/a2/a3');
    expect((await request(appB).get(byPath('b1/a2/a3'))).body).to.include({ title: 'a3' });
    const html = (await request(appB).get('/b1/a2/a3')).text;
    // The breadcrumbs (the header's navigation lists every root page, a1 included).
    const breadcrumbs = html.slice(html.indexOf('class="breadcrumbs"'), html.indexOf('</nav>', html.indexOf('class="breadcrumbs"')));
    expect(breadcrumbs).to.include('<a href="/b1">b1</a>').and.not.include('href="/a1"');
    expect((await request(appB).get('/app/api/pages?parent=a1')).body.items).to.deep.equal([]);
    expect((await request(appB).get('/app/api/pages?parent=b1')).body.items.map((item: { id: number; url: string }) => [item.id, item.url])).to.deep.equal([
      [a2, '/b1/a2'],
    ]);
    expect((await request(appB).get(`/app/api/pages?parent=${a1}`)).body.total).to.equal(0);
  });

  it('forgets a deleted page and its subtree, in the sitemap too', async () => {
    const [p1, p2] = await makeChain(a, 3);
    for (const path of [byPath('p1/p2/p3'), '/p1/p2', '/sitemap-1.xml', '/app/api/pages?parent=p1']) await request(appB).get(path);
    expect((await request(appB).get('/sitemap-1.xml')).text).to.include('/p1/p2/p3');

    await notified(b, () => deletePage(a, p2, { cascade: true }));
    // Gone, not unknown: a deleted page's paths answer 410 (test/pages/redirects.test.ts).
    for (const path of [byPath('p1/p2/p3'), '/p1/p2']) expect((await request(appB).get(path)).status, path).to.equal(410);
    expect((await request(appB).get('/sitemap-1.xml')).text).to.not.include('/p1/p2');
    expect((await request(appB).get('/app/api/pages?parent=p1')).body.total).to.equal(0);
    expect((await request(appB).get(byPath('p1'))).body.id).to.equal(p1);
  });

  it('shows a media’s new alternative text on the pages that show it; the JSON, which carries no media data, stays in memory', async () => {
    const media = await insertMedia(
      a,
      { filename: 'media/0123456789abcdef0123456789abcdef.png', original_name: 'a.png', mime_type: 'image/png', size: 10, alt: 'Texte avant' },
      null,
    );
    await makePage(a, { title: 'Galerie', slug: 'galerie', blocks: [{ type: 'image', media_id: media.id }] });
    await settled(b);
    expect((await request(appB).get('/galerie')).text).to.include('Texte avant');
    await request(appB).get(byPath('galerie'));

    await notified(b, () => updateMedia(a, media.id, { alt: 'Texte après' }));
    expect((await request(appB).get('/galerie')).text)
      .to.include('Texte après')
      .and.not.include('Texte avant');
    expect((await counted(b, appB, byPath('galerie'))).count).to.equal(0);
  });

  it('remembers an unknown path without a statement until a new page fills it', async () => {
    const [p1] = await makeChain(a, 1);
    await settled(b);
    for (const path of [byPath('p1/nouvelle'), '/p1/nouvelle', '/app/api/pages?parent=p1/nouvelle']) {
      expect((await request(appB).get(path)).status, path).to.equal(404);
      const again = await counted(b, appB, path);
      expect(again.res.status, path).to.equal(404);
      expect(again.count, path).to.equal(0);
    }
    await notified(b, () => makePage(a, { title: 'Nouvelle', parent_id: p1 }));
    expect((await request(appB).get(byPath('p1/nouvelle'))).body).to.include({ title: 'Nouvelle' });
    expect((await request(appB).get('/p1/nouvelle')).status).to.equal(200);
    expect((await request(appB).get('/app/api/pages?parent=p1/nouvelle')).status).to.equal(200);
  });

  it('shows the new home page at / as soon as it exists', async () => {
    await makeChain(a, 1);
    expect((await request(appB).get('/')).text).to.include('href="/p1"');
    await notified(b, () => makePage(a, { title: 'Accueil', blocks: [{ type: 'paragraph', text: 'Bienvenue ici' }] }));
    expect((await request(appB).get('/')).text).to.include('Bienvenue ici');
  });

  it('never answers an old page after a write through the same application (its next read waits for the notification)', async () => {
    const [p1] = await makeChain(a, 1);
    for (let round = 1; round <= 25; round++) {
      await request(appB).get('/p1');
      await request(appB).get(byPath('p1'));
      await updatePage(b, p1, { blocks: [{ type: 'paragraph', text: `Version ${round}` }] });
      expect((await request(appB).get('/p1')).text, `round ${round}`).to.include(`Version ${round}<`);
      expect((await request(appB).get(byPath('p1'))).body.blocks[0].text, `round ${round}`).to.equal(`Version ${round}`);
    }
  });

  it('when its listening connection is killed, forgets everything, never answers stale, and caches again once it listens again', async () => {
    const [p1] = await makeChain(a, 1, 'p', { blocks: [{ type: 'paragraph', text: 'Avant la coupure' }] });
    await settled(b);
    await request(appB).get(byPath('p1'));
    expect((await counted(b, appB, byPath('p1'))).count).to.equal(0);
    const pid = b.publicCache.listenerPid;
    expect(pid).to.be.a('number');

    const lost = once(b.publicCache.events, 'lost', { signal: AbortSignal.timeout(10_000) });
    let stateWhenLost: { usable: boolean; entries: number } | undefined;
    b.publicCache.events.once('lost', () => (stateWhenLost = { usable: b.publicCache.usable, entries: b.publicCache.stats.entries }));
    await adminQuery(`SELECT pg_terminate_backend(${pid})`);
    await lost;
    expect(stateWhenLost).to.deep.equal({ usable: false, entries: 0 });
    const relistened = b.publicCache.usable ? Promise.resolve() : once(b.publicCache.events, 'listening', { signal: AbortSignal.timeout(10_000) });

    // A change B cannot be told of while it does not listen: B still answers it.
    await updatePage(a, p1, { blocks: [{ type: 'paragraph', text: 'Pendant la coupure' }] });
    expect((await request(appB).get(byPath('p1'))).body.blocks[0].text).to.equal('Pendant la coupure');
    expect((await request(appB).get('/p1')).text).to.include('Pendant la coupure');

    await relistened;
    expect(b.publicCache.listenerPid).to.be.a('number').and.not.equal(pid);
    const refill = await counted(b, appB, byPath('p1'));
    expect(refill.res.body.blocks[0].text).to.equal('Pendant la coupure');
    expect((await counted(b, appB, byPath('p1'))).count).to.equal(0);
    await notified(b, () => updatePage(a, p1, { blocks: [{ type: 'paragraph', text: 'Après la coupure' }] }));
    expect((await request(appB).get(byPath('p1'))).body.blocks[0].text).to.equal('Après la coupure');
  });

  it('stores nothing with PAGE_CACHE_MB=0 (every read runs its statements) and sends the same validators; PUBLIC_CACHE_SECONDS sets s-maxage', async () => {
    const off = createTestApp({ PAGE_CACHE_MB: '0', PUBLIC_CACHE_SECONDS: '300' });
    try {
      const ctx = contextOf(off);
      expect(ctx.publicCache.usable).to.equal(false);
      await makeChain(a, 2);
      const cached = await request(appB).get('/p1/p2');
      for (let round = 0; round < 2; round++) {
        const { res, count } = await counted(ctx, off, '/p1/p2');
        expect(res.status).to.equal(200);
        expect(count).to.be.greaterThan(0);
        expect(res.headers['cache-control']).to.equal('public, max-age=0, must-revalidate, s-maxage=300');
        // The same bytes, so the same tag in every process, cache or none.
        expect(res.headers.etag).to.equal(cached.headers.etag);
      }
      const revalidated = await counted(ctx, off, '/p1/p2', { 'If-None-Match': cached.headers.etag });
      expect(revalidated.res.status).to.equal(304);
      expect(revalidated.count).to.be.greaterThan(0);
      expect(ctx.publicCache.stats.entries).to.equal(0);
    } finally {
      await closeTestApp(off);
    }
  });

  it('serves uploaded files for a year, immutable: a new picture is a new name, the old one is gone', async () => {
    const user = await makeUser(a);
    const image = { buffer: PNG_1X1, type: 'png' as const, contentType: 'image/png', size: PNG_1X1.length, originalName: 'a.png' };
    const acting = { id: user.id, name: user.name, permissions: [], ip: null };
    const first = (await setProfilePicture(a, acting, image)).image!;
    const served = await request(appB).get(first);
    expect(served.status).to.equal(200);
    expect(served.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    const second = (await setProfilePicture(a, acting, image)).image!;
    expect(second)
      .to.match(/^\/uploads\/avatars\/[a-f0-9]{32}\.png$/)
      .and.not.equal(first);
    expect((await request(appB).get(first)).status).to.equal(404);
    expect((await request(appB).get(second)).headers['cache-control']).to.equal('public, max-age=31536000, immutable');
  });

  it('reads PAGE_CACHE_MB (megabytes, fractions allowed, 32 by default) and PUBLIC_CACHE_SECONDS (0 by default), refusing other values by name', () => {
    expect(testConfig({})).to.include({ pageCacheBytes: 32 * 1024 * 1024, publicCacheSeconds: 0 });
    expect(testConfig({ PAGE_CACHE_MB: '0.5', PUBLIC_CACHE_SECONDS: '600' })).to.include({ pageCacheBytes: 524_288, publicCacheSeconds: 600 });
    for (const [name, value] of [
      ['PAGE_CACHE_MB', '-1'],
      ['PAGE_CACHE_MB', 'beaucoup'],
      ['PUBLIC_CACHE_SECONDS', '1.5'],
      ['PUBLIC_CACHE_SECONDS', '-3'],
      ['PUBLIC_CACHE_SECONDS', '31536001'],
    ]) {
      expect(() => testConfig({ [name]: value }), `${name}=${value}`).to.throw(ConfigError, name);
    }
  });

  it('stores each answer body in an allocation of its own, not a slice of a shared slab', () => {
    const facts = { contentType: 'application/json', tags: ['tree:1'] };
    const small = buildAnswer('{"id":1,"title":"Accueil"}', facts);
    const other = buildAnswer('{"id":2,"title":"Contact"}', facts);
    expect(small.body.toString()).to.equal('{"id":1,"title":"Accueil"}');
    // A slice of Buffer.from()'s 8 KiB pool would keep the whole pool alive once cached.
    expect(small.body.buffer.byteLength).to.equal(small.body.length);
    expect(small.body.buffer).to.not.equal(other.body.buffer);
  });

  it('keeps within PAGE_CACHE_MB, dropping the least recently used answers, unknown paths within their own share', async () => {
    const small = createTestApp({ PAGE_CACHE_MB: '0.05' });
    try {
      const ctx = contextOf(small);
      await listening(ctx);
      const text = 'x'.repeat(3000);
      const roots = [];
      for (let index = 1; index <= 40; index++) roots.push(await makePage(a, { title: `Page ${index}`, blocks: [{ type: 'paragraph', text }] }));
      await settled(ctx);
      for (const root of roots) expect((await request(small).get(byPath(root.slug))).status).to.equal(200);
      for (let index = 0; index < 300; index++) expect((await request(small).get(byPath(`inconnue-${index}`))).status).to.equal(404);
      const { entries, bytes, negatives, negativeBytes } = ctx.publicCache.stats;
      const budget = Math.floor(0.05 * 1024 * 1024);
      expect(bytes + negativeBytes).to.be.at.most(budget);
      expect(entries).to.be.within(5, 16);
      expect(negatives).to.be.within(10, 299);
      // The most recent answer is in memory, the first one long gone.
      expect((await counted(ctx, small, byPath(roots[39].slug))).count).to.equal(0);
      expect((await counted(ctx, small, byPath(roots[0].slug))).count).to.equal(1);
    } finally {
      await closeTestApp(small);
    }
  });
});
