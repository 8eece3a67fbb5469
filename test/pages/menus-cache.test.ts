// The menus and the public read cache, with two applications on one database (A writes,
// B reads and learns of A's writes only through the notifications, as another process
// would): a menu change, and a change of a page a menu links to (or of an ancestor),
// drop B's cached pages within a second; an unrelated change keeps them; a cached hit
// runs no statement, and a menu adds no statement to a page's render.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { saveMenu, type MenuLink } from '../../models/pages/menus.js';
import { deletePage } from '../../models/pages/page-delete.js';
import { updatePage } from '../../models/pages/pages.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { countStatements, listening, makeChain, makePage, notified, settled } from './helpers.js';

/** The header's links as `text href`. */
function navigationOf(html: string): string[] {
  const nav = /<nav class="site-nav"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '';
  return [...nav.matchAll(/<a href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((match) => `${match[2]} ${match[1]}`);
}

async function read(ctx: AppContext, app: App, path: string) {
  const { result, count, sql } = await countStatements(ctx, () =>
    request(app)
      .get(path)
      .then((res) => res),
  );
  expect(result.status, path).to.equal(200);
  return { count, navigation: navigationOf(result.text), text: result.text, sql };
}

const link = (fields: Partial<MenuLink>): MenuLink => ({ label: null, page_id: null, url: null, children: [], ...fields });

describe('menus in the public read cache (two applications)', () => {
  let appA: App;
  let appB: App;
  let a: AppContext;
  let b: AppContext;
  let ids: { s1: number; s2: number; s3: number; autre: number; fille: number };
  const paths = ['/', '/s1', '/s1/s2', '/autre'];
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
    const [s1, s2, s3] = await makeChain(a, 3, 's');
    const autre = (await makePage(a, { title: 'Autre', slug: 'autre' })).id;
    const fille = (await makePage(a, { title: 'Fille', slug: 'fille', parent_id: autre })).id;
    ids = { s1, s2, s3, autre, fille };
    await settled(b);
  });

  /** Reads every path twice from B: the second read is a hit, with this navigation. */
  async function fillCache(expected: string[]): Promise<void> {
    for (const path of paths) await read(b, appB, path);
    for (const path of paths) {
      const again = await read(b, appB, path);
      expect(again.count, path).to.equal(0);
      expect(again.navigation, path).to.deep.equal(expected);
    }
  }

  /** Reads `path` from B until its navigation is `expected`; the time it took, in ms. */
  async function untilShown(path: string, expected: string[]): Promise<number> {
    const start = performance.now();
    for (;;) {
      const { navigation } = await read(b, appB, path);
      if (JSON.stringify(navigation) === JSON.stringify(expected)) return performance.now() - start;
      if (performance.now() - start > 2000) throw new Error(`${path}: still ${JSON.stringify(navigation)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('drops B’s cached pages when A edits a menu, within a second; the next hit runs no statement', async () => {
    await fillCache(['Accueil /', 'Autre /autre', 's1 /s1']);
    await saveMenu(a, 'header', [link({ page_id: ids.s3, children: [link({ label: 'Ailleurs', url: 'https://example.org' })] })]);
    const expected = ['s3 /s1/s2/s3', 'Ailleurs https://example.org'];
    expect(await untilShown('/autre', expected)).to.be.below(1000);
    for (const path of paths) {
      const page = await read(b, appB, path);
      expect(page.navigation, path).to.deep.equal(expected);
      expect((await read(b, appB, path)).count, path).to.equal(0);
    }
    // The footer's menu too.
    await saveMenu(a, 'footer', [link({ label: 'Contact', url: 'mailto:contact@example.org' })]);
    const start = performance.now();
    for (;;) {
      if ((await read(b, appB, '/s1')).text.includes('<a href="mailto:contact@example.org">Contact</a>')) break;
      expect(performance.now() - start).to.be.below(1000);
    }
  });

  it('reads the menus in the navigation’s one statement, once after they change, then from memory', async () => {
    // B reads the site's settings and the navigation once, with its first render: not counted in either.
    await read(b, appB, '/s1');
    const before = (await read(b, appB, '/s1/s2')).count;
    await notified(b, () =>
      saveMenu(a, 'header', [link({ page_id: ids.s3 }), link({ page_id: ids.fille, children: [link({ page_id: ids.s1 })] }), link({ label: 'X', url: '/x' })]),
    );
    await notified(b, () => saveMenu(a, 'footer', [link({ page_id: ids.autre })]));
    const after = await read(b, appB, '/s1/s2');
    expect(after.navigation).to.deep.equal(['s3 /s1/s2/s3', 'Fille /autre/fille', 's1 /s1', 'X /x']);
    // The navigation is read again, once, with the menus in it: no statement of their own.
    expect(after.count).to.equal(before + 1);
    expect(after.sql.filter((text) => text.includes('app_page_menus_render'))).to.have.length(1);
    expect((await read(b, appB, '/s1/s2')).count).to.equal(0);
    expect((await read(b, appB, '/s1/s2/s3')).count, 'another page: the page itself only').to.equal(before);
  });

  const linkedChanges: Array<[string, () => Promise<unknown>, string[]]> = [
    ['retitled', () => updatePage(a, ids.s3, { title: 'Troisième' }), ['Troisième /s1/s2/s3', 'Autre /autre']],
    ['given another slug', () => updatePage(a, ids.s3, { slug: 'trois' }), ['s3 /s1/s2/trois', 'Autre /autre']],
    ['moved', () => updatePage(a, ids.s3, { parent_id: ids.autre }), ['s3 /autre/s3', 'Autre /autre']],
    ['made private', () => updatePage(a, ids.s3, { visibility: 'private' }), ['Autre /autre']],
    ['deleted', () => deletePage(a, ids.s3), ['Autre /autre']],
    ['under an ancestor given another slug', () => updatePage(a, ids.s2, { slug: 'deux' }), ['s3 /s1/deux/s3', 'Autre /autre']],
    ['under an ancestor made private', () => updatePage(a, ids.s2, { visibility: 'private' }), ['Autre /autre']],
  ];
  for (const [change, write, expected] of linkedChanges) {
    it(`drops B’s cached pages when a linked page is ${change}`, async () => {
      // /s1 stays public whatever the change: it shows the new menu.
      await notified(b, () => saveMenu(a, 'header', [link({ page_id: ids.s3 }), link({ page_id: ids.autre })]));
      await fillCache(['s3 /s1/s2/s3', 'Autre /autre']);
      await notified(b, write);
      for (const path of ['/s1', '/autre']) {
        const page = await read(b, appB, path);
        expect(page.count, path).to.be.greaterThan(0);
        expect(page.navigation, path).to.deep.equal(expected);
      }
    });
  }

  it('keeps B’s cached pages when a page no menu links to changes', async () => {
    await notified(b, () => saveMenu(a, 'header', [link({ page_id: ids.s3 })]));
    await fillCache(['s3 /s1/s2/s3']);
    await notified(b, () => updatePage(a, ids.fille, { title: 'Fille renommée', slug: 'fille-2' }));
    for (const path of ['/', '/s1', '/s1/s2']) expect((await read(b, appB, path)).count, path).to.equal(0);
  });
});
