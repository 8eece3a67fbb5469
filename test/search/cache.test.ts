// The search's answers in the public read cache, with two applications on one database
// (A writes, B reads and learns of A's writes only through the notifications, as another
// process would): a repeated search runs no statement; a renamed page is found by its new
// title at once in the writing app and as soon as the other is told; a page made private
// or a new page changes the cached answers in both.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { updatePage } from '../../models/pages/pages.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { countStatements, listening, makePage, notified, settled } from '../pages/helpers.js';

async function read(ctx: AppContext, app: App, path: string) {
  const { result, count } = await countStatements(ctx, () =>
    request(app)
      .get(path)
      .then((res) => res),
  );
  return { res: result, count };
}

const titlesOf = (body: { items: Array<{ title: string }> }) => body.items.map((item) => item.title);

describe('the search in the public read cache (two applications)', () => {
  let appA: App;
  let appB: App;
  let a: AppContext;
  let b: AppContext;
  let pageId: number;
  before(async () => {
    appA = createTestApp();
    appB = createTestApp();
    a = contextOf(appA);
    b = contextOf(appB);
    await Promise.all([listening(a), listening(b)]);
  });
  after(async () => {
    await closeTestApp(appA);
    await closeTestApp(appB);
  });
  beforeEach(async () => {
    await notified(b, () => resetData(a));
    pageId = (await makePage(a, { title: 'Atelier de poterie', slug: 'atelier', blocks: [{ type: 'paragraph', text: 'Le tour et le four.' }] })).id;
    await settled(b);
  });

  it('answers a repeated search from the cache, without a statement', async () => {
    for (const [ctx, app] of [
      [a, appA],
      [b, appB],
    ] as const) {
      const first = await read(ctx, app, '/app/api/pages/search?q=poterie');
      expect(first.count).to.be.greaterThan(0);
      expect(titlesOf(first.res.body)).to.deep.equal(['Atelier de poterie']);
      const again = await read(ctx, app, '/app/api/pages/search?q=Poterie');
      expect(again.count).to.equal(0);
      expect(again.res.body).to.deep.equal(first.res.body);
      expect(again.res.headers['cache-control']).to.match(/^public, max-age=0, must-revalidate/);
      await read(ctx, app, '/recherche?q=poterie');
      expect((await read(ctx, app, '/recherche?q=poterie')).count).to.equal(0);
    }
  });

  it('finds a renamed page by its new title at once in the writing app, and in the other once told', async () => {
    for (const path of ['/app/api/pages/search?q=ceramique', '/app/api/pages/search?q=poterie', '/recherche?q=ceramique']) {
      await read(a, appA, path);
      await read(b, appB, path);
    }
    await notified(b, () => updatePage(a, pageId, { title: 'Atelier de céramique' }));
    expect(await a.db('app_page_search').where({ page_id: pageId }).first())
      .to.have.property('document')
      .that.includes("'ceram':3A");
    for (const [ctx, app] of [
      [a, appA],
      [b, appB],
    ] as const) {
      const renamed = await read(ctx, app, '/app/api/pages/search?q=ceramique');
      expect(renamed.count).to.be.greaterThan(0);
      expect(titlesOf(renamed.res.body)).to.deep.equal(['Atelier de céramique']);
      expect(titlesOf((await read(ctx, app, '/app/api/pages/search?q=poterie')).res.body)).to.deep.equal([]);
      expect((await read(ctx, app, '/recherche?q=ceramique')).res.text).to.include('<a href="/atelier">Atelier de céramique</a>');
    }
  });

  it('forgets a page made private and finds a new page, in both apps', async () => {
    await read(b, appB, '/app/api/pages/search?q=atelier');
    await notified(b, () => updatePage(a, pageId, { visibility: 'private' }));
    expect(titlesOf((await read(b, appB, '/app/api/pages/search?q=atelier')).res.body)).to.deep.equal([]);
    await notified(b, () => makePage(a, { title: 'Atelier de couture', slug: 'couture' }));
    expect(titlesOf((await read(b, appB, '/app/api/pages/search?q=atelier')).res.body)).to.deep.equal(['Atelier de couture']);
    expect(titlesOf((await read(a, appA, '/app/api/pages/search?q=atelier')).res.body)).to.deep.equal(['Atelier de couture']);
  });
});
