// The site's navigation and the public read cache, with two applications on one
// database (A writes, B reads and learns of A's writes only through the notifications,
// as another process would): a change of a root page drops every cached HTML page, a
// change of a root page's content alone drops only what showed it; and `/` while no
// account exists, which stops saying so right after the first run.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { deletePage } from '../../models/pages/page-delete.js';
import { updatePage } from '../../models/pages/pages.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { FakeClock, FormClient, strongPassword } from '../support/form-client.js';
import { assertFrenchTypography } from '../support/typography.js';
import { visibleText } from './site-text.js';
import { countStatements, listening, makeChain, makePage, notified, settled } from './helpers.js';

/** The hrefs of the header's navigation. */
function navigationOf(html: string): string[] {
  const nav = /<nav class="site-nav"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '';
  return [...nav.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]);
}

/** GET through `app`: the answer and how many statements it ran on `ctx`'s pool. */
async function read(ctx: AppContext, app: App, path: string) {
  const { result, count } = await countStatements(ctx, () =>
    request(app)
      .get(path)
      .then((res) => res),
  );
  return { res: result, count, navigation: navigationOf(result.text) };
}

describe('the site’s navigation in the public read cache (two applications)', () => {
  let appA: App;
  let appB: App;
  let a: AppContext;
  let b: AppContext;
  const cachedPaths = ['/', '/s1', '/s1/s2', '/s1/s2/s3', '/autre'];
  before(async () => {
    appA = createTestApp();
    appB = createTestApp();
    a = contextOf(appA);
    b = contextOf(appB);
    await Promise.all([listening(a), listening(b)]);
  });
  beforeEach(async () => {
    await notified(b, () => resetData(a));
    await makeChain(a, 3, 's');
    await makePage(a, { title: 'Autre', slug: 'autre' });
    await settled(b);
  });

  /** Reads every path once (filling B's cache), then checks a second read runs no statement. */
  async function fillCache(): Promise<void> {
    for (const path of cachedPaths) expect((await read(b, appB, path)).res.status, path).to.equal(200);
    for (const path of cachedPaths) {
      const again = await read(b, appB, path);
      expect(again.count, path).to.equal(0);
      expect(again.navigation, path).to.deep.equal(['/', '/autre', '/s1']);
    }
  }

  const rootChanges: Array<[string, (ids: { s1: number; autre: number; s2: number }) => Promise<unknown>, string[]]> = [
    ['created', () => makePage(a, { title: 'Nouvelle', slug: 'nouvelle' }), ['/', '/autre', '/nouvelle', '/s1']],
    ['retitled', ({ autre }) => updatePage(a, autre, { title: 'zz, en dernier' }), ['/', '/s1', '/autre']],
    ['given another slug', ({ autre }) => updatePage(a, autre, { slug: 'autrement' }), ['/', '/autrement', '/s1']],
    ['moved under another page', ({ autre, s1 }) => updatePage(a, autre, { parent_id: s1 }), ['/', '/s1']],
    ['made private', ({ autre }) => updatePage(a, autre, { visibility: 'private' }), ['/', '/s1']],
    ['deleted', ({ autre }) => deletePage(a, autre), ['/', '/s1']],
    ['made of a sub-page (moved to the root)', ({ s2 }) => updatePage(a, s2, { parent_id: null }), ['/', '/autre', '/s1', '/s2']],
  ];

  for (const [change, write, expected] of rootChanges) {
    it(`drops every cached HTML page when a root page is ${change}`, async () => {
      const ids = {
        s1: (await a.db('app_pages').where({ slug: 's1' }).first())!.id,
        s2: (await a.db('app_pages').where({ slug: 's2' }).first())!.id,
        autre: (await a.db('app_pages').where({ slug: 'autre' }).first())!.id,
      };
      await fillCache();
      await notified(b, () => write(ids));
      // s1 itself stays where it is: its page shows the new navigation.
      const page = await read(b, appB, '/s1');
      expect(page.count).to.be.greaterThan(0);
      expect(page.navigation).to.deep.equal(expected);
      expect((await read(b, appB, '/')).navigation).to.deep.equal(expected);
      if (change !== 'made of a sub-page (moved to the root)') {
        const deep = await read(b, appB, '/s1/s2/s3');
        expect(deep.count).to.be.greaterThan(0);
        expect(deep.navigation).to.deep.equal(expected);
      }
    });
  }

  it('keeps the other cached pages when only a root page’s content changes', async () => {
    await fillCache();
    const autre = (await a.db('app_pages').where({ slug: 'autre' }).first())!.id;
    await notified(b, () => updatePage(a, autre, { blocks: [{ type: 'paragraph', text: 'Nouveau contenu' }] }));
    expect((await read(b, appB, '/autre')).res.text).to.include('Nouveau contenu');
    for (const path of ['/s1', '/s1/s2', '/s1/s2/s3']) expect((await read(b, appB, path)).count, path).to.equal(0);
  });

  describe('/ while no account exists', () => {
    it('says the site is not configured and links to /auth, never cached; after the first run in A, both apps show the site', async () => {
      await notified(b, () => resetData(a));
      b.memo.accountExists = false;
      for (const [app, ctx] of [
        [appA, a],
        [appB, b],
      ] as const) {
        for (let round = 0; round < 2; round++) {
          const { res, count } = await read(ctx, app, '/');
          expect(res.status).to.equal(200);
          expect(res.text).to.include('Site pas encore configuré').and.include('<a href="/auth">Première configuration</a>');
          expect(res.text).to.include('<meta name="robots" content="noindex">');
          expect(res.headers['cache-control']).to.equal('no-store');
          assertFrenchTypography(visibleText(res.text), 'not configured');
          // Looked up each time: the home page, the root pages, whether an account exists;
          // the site's settings once (then kept in memory until they change).
          expect(count).to.equal(round === 0 ? 4 : 3);
        }
      }
      const form = new FormClient(appA, new FakeClock());
      const created = await form.submit('/auth', { name: 'Ada', email: 'ada@exemple.fr', password: strongPassword });
      expect(created.status).to.equal(303);
      expect(await a.db('app_auth_users').count({ n: '*' })).to.deep.equal([{ n: 1 }]);
      for (const app of [appA, appB]) {
        const home = await request(app).get('/');
        expect(home.text).to.not.include('pas encore configuré');
        expect(home.text).to.include('Aucune page publiée pour le moment.');
        expect(home.headers['cache-control']).to.match(/^public/);
      }
      // From then on the home page is cached like any page.
      expect((await read(b, appB, '/')).count).to.equal(0);
    });

    it('shows the published pages of a site that has some, whether an account exists or not', async () => {
      b.memo.accountExists = false;
      const { res } = await read(b, appB, '/');
      expect(res.text).to.include('href="/autre"').and.not.include('pas encore configuré');
    });
  });

  after(async () => {
    await closeTestApp(appA);
    await closeTestApp(appB);
  });
});
