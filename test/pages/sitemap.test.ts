// The sitemap over several files: an app whose pages module writes 3 URLs per file, in
// batches of 2 rows, so a handful of pages spans an index and several files.
import { expect } from 'chai';
import request from 'supertest';
import { closeApp, createApp, type App } from '../../app.js';
import { createGate } from '../../lib/gate.js';
import type { AppContext } from '../../lib/context.js';
import { createPage, deletePage, updatePage } from '../../models/pages/pages.js';
import { sitemapBatch, sitemapFileCount, sitemapRange } from '../../models/pages/sitemap.js';
import { coreModule } from '../../routes/core-module.js';
import { createPagesModule } from '../../routes/pages/index.js';
import { contextOf, resetData, testConfig } from '../support/app.js';
import { countStatements } from './helpers.js';

const BASE = 'https://exemple.fr';
const locsOf = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]);

describe('sitemap: an index over numbered files', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createApp(testConfig({ BASE_URL: BASE }), [coreModule, createPagesModule({ sitemap: { perFile: 3, batchSize: 2 } })]);
    ctx = contextOf(app);
  });
  after(() => closeApp(app));
  beforeEach(() => resetData(ctx));
  afterEach(() => ctx.clock.set());

  /** 7 public pages (one under a private page), one private page: 3 files of 3 URLs at most. */
  async function site(): Promise<Record<string, number>> {
    const a = await createPage(ctx, { title: 'A' });
    const b = await createPage(ctx, { title: 'B', parent_id: a.id });
    const secret = await createPage(ctx, { title: 'Privée', visibility: 'private' });
    const below = await createPage(ctx, { title: 'Dessous', parent_id: secret.id });
    const c = await createPage(ctx, { title: 'C', parent_id: b.id });
    // A root slug like a file's name: the page is /sitemap-1, the file /sitemap-1.xml.
    const lookalike = await createPage(ctx, { title: 'Sitemap 1' });
    const d = await createPage(ctx, { title: 'D' });
    const e = await createPage(ctx, { title: 'E', parent_id: d.id });
    return { a: a.id, b: b.id, secret: secret.id, below: below.id, c: c.id, lookalike: lookalike.id, d: d.id, e: e.id };
  }

  const expected = ['/', '/a', '/a/b', '/a/b/c', '/sitemap-1', '/d', '/d/e'].map((path) => BASE + path);

  it('lists every file in the index; the files hold each public URL once, at most 3 each, in id order, private branches left out', async () => {
    await site();
    const index = await request(app).get('/sitemap.xml');
    expect(index.status).to.equal(200);
    expect(index.headers['content-type']).to.equal('application/xml; charset=utf-8');
    expect(index.text).to.match(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<\?xml-stylesheet type="text\/xsl" href="\/assets\/sitemap.xsl"\?>\n<sitemapindex xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/,
    );
    // 7 public rows (one hidden by its private parent) and the home URL: 3 files.
    expect(locsOf(index.text)).to.deep.equal([1, 2, 3].map((n) => `${BASE}/sitemap-${n}.xml`));
    expect(index.text.match(/<lastmod>/g)).to.have.length(3);
    const files: string[][] = [];
    for (let n = 1; n <= 3; n++) {
      const file = await request(app).get(`/sitemap-${n}.xml`);
      expect(file.status, `file ${n}`).to.equal(200);
      expect(file.headers['content-type']).to.equal('application/xml; charset=utf-8');
      expect(file.text).to.match(/<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">\n[\s\S]*<\/urlset>\n$/);
      files.push(locsOf(file.text));
    }
    // Positions among public pages: the page under the private one keeps its place in file 2.
    expect(files.map((locs) => locs.length)).to.deep.equal([3, 2, 2]);
    expect(files.flat()).to.deep.equal(expected);
    expect(files.flat().join(' ')).to.not.match(/privee|dessous/);
    expect((await request(app).get('/sitemap-1')).status).to.equal(200);
  });

  it('answers 404 past the last file and for names that are not a file number', async () => {
    await site();
    for (const path of ['/sitemap-4.xml', '/sitemap-0.xml', '/sitemap-01.xml', '/sitemap-x.xml', '/sitemap-1.5.xml', '/sitemap-99999999999.xml']) {
      expect((await request(app).get(path)).status, path).to.equal(404);
    }
    await resetData(ctx);
    // An empty site still has one file: its home URL.
    expect(locsOf((await request(app).get('/sitemap.xml')).text)).to.deep.equal([`${BASE}/sitemap-1.xml`]);
    expect(locsOf((await request(app).get('/sitemap-1.xml')).text)).to.deep.equal([`${BASE}/`]);
    expect((await request(app).get('/sitemap-2.xml')).status).to.equal(404);
  });

  it('writes a file in keyset batches (one statement per 2 rows), never the whole file at once', async () => {
    await site();
    const { sql } = await countStatements(ctx, () =>
      request(app)
        .get('/sitemap-2.xml')
        .then((res) => res),
    );
    const batches = sql.filter((statement) => statement.includes('WITH RECURSIVE batch'));
    expect(batches).to.have.length(2);
    // Statement by statement through the model, with the file size as a parameter.
    expect(await sitemapFileCount(ctx, 3)).to.equal(3);
    expect(await sitemapFileCount(ctx, 8)).to.equal(1);
    const range = (await sitemapRange(ctx, 2, null, 3))!;
    const first = await sitemapBatch(ctx, range, 0, 2);
    const second = await sitemapBatch(ctx, range, first[1].id, 2);
    expect([...first, ...second].map((row) => row.url)).to.deep.equal([null, '/a/b/c', '/sitemap-1']);
    expect(await sitemapRange(ctx, 4, 3)).to.equal(null);
  });

  it('answers 304 to If-None-Match and If-Modified-Since with no statement (from the read cache), until a page changes or is deleted', async () => {
    const ids = await site();
    const start = Date.parse('2031-05-01T10:00:00Z');
    for (const path of ['/sitemap.xml', '/sitemap-2.xml']) {
      ctx.clock.set(() => start);
      await updatePage(ctx, ids.a, { title: 'A' });
      const first = await request(app).get(path);
      const etag = first.headers.etag;
      const lastModified = first.headers['last-modified'];
      expect(etag, path).to.match(/^"[^"]+"$/);
      expect(lastModified).to.equal(new Date(start).toUTCString());
      const byTag = await countStatements(ctx, () =>
        request(app)
          .get(path)
          .set('If-None-Match', etag)
          .then((res) => res),
      );
      expect(byTag.result.status, path).to.equal(304);
      expect(byTag.result.text ?? '').to.equal('');
      // The file was just read, so the public read cache answers it: no statement at all
      // (one, the tree's version, when the cache is off).
      expect(byTag.count).to.equal(0);
      expect((await request(app).get(path).set('If-Modified-Since', lastModified)).status).to.equal(304);
      expect((await request(app).head(path).set('If-None-Match', etag)).status).to.equal(304);
      // Another file, the same version: another tag.
      expect((await request(app).get('/sitemap-1.xml').set('If-None-Match', etag)).status).to.equal(200);

      ctx.clock.set(() => start + 60_000);
      await updatePage(ctx, ids.e, { title: 'E bis' });
      const changed = await request(app).get(path).set('If-None-Match', etag);
      expect(changed.status).to.equal(200);
      expect(changed.headers.etag).to.not.equal(etag);
      expect((await request(app).get(path).set('If-Modified-Since', lastModified)).status).to.equal(200);

      // A deletion moves both, though no remaining row is newer.
      const before = changed.headers.etag;
      ctx.clock.set(() => start + 120_000);
      await deletePage(ctx, ids.c);
      const afterDelete = await request(app).get(path).set('If-None-Match', before);
      expect(afterDelete.status).to.equal(200);
      expect(afterDelete.headers['last-modified']).to.equal(new Date(start + 120_000).toUTCString());
      ids.c = (await createPage(ctx, { title: 'C', parent_id: ids.b })).id;
    }
  });

  it('answers HEAD with the headers only', async () => {
    await site();
    const head = await request(app).head('/sitemap-1.xml');
    expect(head.status).to.equal(200);
    expect(head.headers['content-type']).to.equal('application/xml; charset=utf-8');
    expect(head.headers.etag).to.be.a('string');
    expect(head.text ?? '').to.equal('');
  });

  it('runs its statements through a gate: one at a time, first come first served, resting as long as each ran', async () => {
    const gate = createGate(1, 0.5);
    const starts: Array<[string, number]> = [];
    const work = (name: string) => () =>
      new Promise<string>((resolve) => {
        starts.push([name, performance.now()]);
        setTimeout(() => resolve(name), 40);
      });
    expect(await Promise.all(['a', 'b', 'c'].map((name) => gate.run(work(name))))).to.deep.equal(['a', 'b', 'c']);
    expect(starts.map(([name]) => name)).to.deep.equal(['a', 'b', 'c']);
    // Each ran 40 ms, then its slot rested as long: the next one starts 80 ms later at the earliest.
    for (const index of [1, 2]) expect(starts[index][1] - starts[index - 1][1]).to.be.at.least(75);
  });
});
