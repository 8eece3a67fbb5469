// Redirects that follow the tree: the old paths of a moved page and of its whole subtree
// answer 301 to the current path (site and by-path), a deleted page's paths 410, a page
// created at an old path takes it over, a private target stays a 404; a missed lookup
// pays one statement more, a hit nothing; manual redirects through the admin API and
// the admin screen; the read caches of two applications follow the changes.
import { once } from 'node:events';
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import type { PublicChange } from '../../lib/public-cache.js';
import { deletePage } from '../../models/pages/page-delete.js';
import { updatePage } from '../../models/pages/pages.js';
import { createRedirect, deleteRedirect } from '../../models/pages/redirects.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { countStatements, makePage, userWith } from './helpers.js';

const byPath = (path: string) => `/app/api/pages/by-path?path=${encodeURIComponent(path)}`;

async function listening(ctx: AppContext): Promise<void> {
  if (!ctx.publicCache.usable) await once(ctx.publicCache.events, 'listening', { signal: AbortSignal.timeout(10_000) });
}

let markers = 0;

/**
 * Runs `write`, then waits until `reader` has applied every notification committed so
 * far: they arrive in commit order, so once a marked one sent now has arrived, so have
 * they (the write's own may arrive first: the marker is what is waited for).
 */
async function heard(reader: AppContext, write: () => Promise<unknown>): Promise<void> {
  await write();
  const marker = -++markers;
  const events = reader.publicCache.events;
  let listener: (change: PublicChange) => void = () => undefined;
  const seen = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('marker not heard within 10 s')), 10_000);
    listener = (change) => {
      if (change.tags?.includes(`media:${marker}`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    events.on('change', listener);
  });
  try {
    await reader.db.raw(`SELECT pg_notify('site_public_changes', ?)`, [JSON.stringify({ tags: [`media:${marker}`] })]);
    await seen;
  } finally {
    events.off('change', listener);
  }
}

/** rubrique/section/page and an empty root «archives»: the section is what moves. */
async function makeSection(ctx: AppContext): Promise<{ rubrique: number; archives: number; section: number; page: number }> {
  const rubrique = (await makePage(ctx, { title: 'Rubrique', slug: 'rubrique' })).id;
  const archives = (await makePage(ctx, { title: 'Archives', slug: 'archives' })).id;
  const section = (await makePage(ctx, { title: 'Section', slug: 'section', parent_id: rubrique })).id;
  const page = (await makePage(ctx, { title: 'Troisième niveau', slug: 'page', parent_id: section })).id;
  return { rubrique, archives, section, page };
}

async function redirectRows(ctx: AppContext) {
  return ctx.db('app_page_redirects').orderBy('path').select('path', 'page_id', 'kind');
}

describe('redirects that follow the tree', () => {
  let app: App;
  let ctx: AppContext;
  before(async () => {
    app = createTestApp();
    ctx = contextOf(app);
    await listening(ctx);
  });
  beforeEach(() => resetData(ctx));

  describe('moves, renames, take-over and deletion', () => {
    it('after moving a section, its third-level page’s old URL answers 301 to the new one, on the site and on by-path', async () => {
      const { archives, section, page } = await makeSection(ctx);
      const editor = await userWith(ctx, ['admin.access', 'pages.manage', 'pages.publish']);
      await updatePage(ctx, section, { parent_id: archives }, { id: editor.id, name: 'Éditrice', ip: null });

      const site = await request(app).get('/rubrique/section/page');
      expect(site.status).to.equal(301);
      expect(site.headers.location).to.equal('/archives/section/page');
      expect((await request(app).get('/rubrique/section')).headers.location).to.equal('/archives/section');
      expect((await request(app).get('/rubrique/section/page?ref=lettre')).headers.location).to.equal('/archives/section/page?ref=lettre');
      const followed = await request(app).get(site.headers.location);
      expect(followed.status).to.equal(200);
      expect(followed.text).to.include('Troisième niveau');

      const api = await request(app).get(byPath('rubrique/section/page'));
      expect(api.status).to.equal(301);
      expect(api.headers.location).to.equal('/app/api/pages/by-path?path=archives%2Fsection%2Fpage');
      const json = await request(app).get(api.headers.location);
      expect(json.status).to.equal(200);
      expect(json.body).to.include({ id: page, slug: 'page' });

      expect(await redirectRows(ctx)).to.deep.equal([
        { path: '/rubrique/section', page_id: section, kind: 'automatic' },
        { path: '/rubrique/section/page', page_id: page, kind: 'automatic' },
      ]);
      const row = await ctx.db('app_page_redirects').where({ page_id: page }).first();
      expect(row!.created_by).to.equal(editor.id);
    });

    it('leads every old path straight to the current one after a second move (no chain, no rewrite)', async () => {
      const { rubrique, archives, section } = await makeSection(ctx);
      await updatePage(ctx, section, { parent_id: archives });
      await updatePage(ctx, section, { slug: 'partie' });
      await updatePage(ctx, archives, { slug: 'fonds' });

      for (const old of ['/rubrique/section/page', '/archives/section/page', '/archives/partie/page']) {
        const res = await request(app).get(old);
        expect(res.status, old).to.equal(301);
        expect(res.headers.location, old).to.equal('/fonds/partie/page');
      }
      expect((await request(app).get('/archives')).headers.location).to.equal('/fonds');
      expect((await request(app).get('/fonds/partie/page')).status).to.equal(200);
      // Each old path once; the section's rows were not rewritten by the rename of an ancestor.
      expect((await redirectRows(ctx)).map((row) => row.path)).to.deep.equal([
        '/archives',
        '/archives/partie',
        '/archives/partie/page',
        '/archives/section',
        '/archives/section/page',
        '/rubrique/section',
        '/rubrique/section/page',
      ]);
      expect(rubrique).to.be.a('number');
    });

    it('gives a path back to the page that returns to it', async () => {
      const { rubrique, archives, section } = await makeSection(ctx);
      await updatePage(ctx, section, { parent_id: archives });
      await updatePage(ctx, section, { parent_id: rubrique });

      expect((await request(app).get('/rubrique/section/page')).status).to.equal(200);
      expect((await request(app).get('/archives/section/page')).headers.location).to.equal('/rubrique/section/page');
      expect((await redirectRows(ctx)).map((row) => row.path)).to.deep.equal(['/archives/section', '/archives/section/page']);
    });

    it('lets a page created at an old path take it over (the redirect row is dropped)', async () => {
      const { rubrique, section } = await makeSection(ctx);
      await updatePage(ctx, section, { slug: 'nouvelle' });
      expect((await request(app).get('/rubrique/section')).status).to.equal(301);

      const newcomer = await makePage(ctx, { title: 'Nouvelle venue', slug: 'section', parent_id: rubrique });
      const site = await request(app).get('/rubrique/section');
      expect(site.status).to.equal(200);
      expect(site.text).to.include('Nouvelle venue');
      expect((await request(app).get(byPath('rubrique/section'))).body).to.include({ id: newcomer.id });
      // Its sub-page's old path still leads to the moved page.
      expect((await request(app).get('/rubrique/section/page')).headers.location).to.equal('/rubrique/nouvelle/page');
      expect((await redirectRows(ctx)).map((row) => row.path)).to.deep.equal(['/rubrique/section/page']);
    });

    it('answers 410 for a deleted page’s current and old paths, and for its sub-pages', async () => {
      const { section, page } = await makeSection(ctx);
      await updatePage(ctx, section, { slug: 'avant' });
      await updatePage(ctx, section, { slug: 'section' });
      await deletePage(ctx, section, { cascade: true });

      for (const path of ['/rubrique/section', '/rubrique/section/page', '/rubrique/avant', '/rubrique/avant/page']) {
        const res = await request(app).get(path);
        expect(res.status, path).to.equal(410);
        expect(res.headers.location, path).to.equal(undefined);
        expect(res.text, path).to.include('Page supprimée');
      }
      const api = await request(app).get(byPath('rubrique/section/page'));
      expect(api.status).to.equal(410);
      expect(api.body).to.deep.equal({ error: 'Cette page a été supprimée.', code: 'gone' });
      const rows = await redirectRows(ctx);
      expect(rows.map((row) => row.path)).to.deep.equal(['/rubrique/avant', '/rubrique/avant/page', '/rubrique/section', '/rubrique/section/page']);
      expect(rows.every((row) => row.page_id === null)).to.equal(true);
      expect(page).to.be.a('number');
    });

    it('answers 404 for a redirect to a private page or to a page under a private one, and names no path', async () => {
      const { archives, section, page } = await makeSection(ctx);
      await updatePage(ctx, section, { parent_id: archives });
      await updatePage(ctx, page, { visibility: 'private' });
      for (const res of [await request(app).get('/rubrique/section/page'), await request(app).get(byPath('rubrique/section/page'))]) {
        expect(res.status).to.equal(404);
        expect(res.headers.location).to.equal(undefined);
        expect(res.text).not.to.include('archives');
      }
      await updatePage(ctx, page, { visibility: 'public' });
      await updatePage(ctx, archives, { visibility: 'private' });
      expect((await request(app).get('/rubrique/section/page')).status).to.equal(404);
      expect((await request(app).get(byPath('rubrique/section'))).status).to.equal(404);
      await updatePage(ctx, archives, { visibility: 'public' });
      expect((await request(app).get('/rubrique/section/page')).headers.location).to.equal('/archives/section/page');
    });

    it('records the old paths of a 60-page subtree in the same statements as a 1-page one', async () => {
      const big = await makeSection(ctx);
      for (let index = 0; index < 60; index++) await makePage(ctx, { title: `Feuille ${index}`, slug: `f${index}`, parent_id: big.page });
      const small = (await makePage(ctx, { title: 'Seule', slug: 'seule' })).id;
      const moveBig = await countStatements(ctx, () => updatePage(ctx, big.section, { parent_id: big.archives }));
      const moveSmall = await countStatements(ctx, () => updatePage(ctx, small, { parent_id: big.archives }));
      expect(moveBig.count).to.equal(moveSmall.count);
      expect(moveBig.sql.some((sql) => /app_page_redirects/.test(sql))).to.equal(false);
      expect(await ctx.db('app_page_redirects').count({ n: '*' })).to.deep.equal([{ n: 63 }]);
      expect((await request(app).get('/rubrique/section/page/f59')).headers.location).to.equal('/archives/section/page/f59');
    });
  });

  describe('statements', () => {
    let uncached: App;
    let direct: AppContext;
    before(() => {
      uncached = createTestApp({ PAGE_CACHE_MB: '0' });
      direct = contextOf(uncached);
    });

    it('reads no redirect for a page that exists, and at most 2 statements for a redirected path', async () => {
      const { archives, section } = await makeSection(ctx);
      await makePage(ctx, { title: 'Stable', slug: 'stable' });
      const hit = await countStatements(direct, () => request(uncached).get(byPath('stable')));
      expect(hit.result.status).to.equal(200);
      expect(hit.count).to.equal(1);
      const page = await countStatements(direct, () => request(uncached).get('/stable'));
      expect(page.result.status).to.equal(200);
      expect(page.sql.some((sql) => /app_page_redirects/.test(sql))).to.equal(false);

      await updatePage(ctx, section, { parent_id: archives });
      for (const path of [byPath('rubrique/section/page'), '/rubrique/section/page']) {
        const moved = await countStatements(direct, () => request(uncached).get(path));
        expect(moved.result.status, path).to.equal(301);
        expect(moved.count, path).to.equal(2);
      }
      const hitAfter = await countStatements(direct, () => request(uncached).get(byPath('stable')));
      expect(hitAfter.count).to.equal(hit.count);
      const unknown = await countStatements(direct, () => request(uncached).get('/inconnue'));
      expect(unknown.result.status).to.equal(404);
      expect(unknown.count).to.equal(2);
    });

    it('serves a redirect again from the read cache without a statement', async () => {
      const { archives, section } = await makeSection(ctx);
      await updatePage(ctx, section, { parent_id: archives });
      for (const path of [byPath('rubrique/section/page'), '/rubrique/section/page']) {
        const first = await countStatements(ctx, () => request(app).get(path));
        expect(first.count, path).to.equal(2);
        const again = await countStatements(ctx, () => request(app).get(path));
        expect(again.result.status, path).to.equal(301);
        expect(again.result.headers.location, path).to.equal(first.result.headers.location);
        expect(again.count, path).to.equal(0);
      }
    });
  });

  describe('two applications on one database: the read caches follow the redirects', () => {
    let appB: App;
    let b: AppContext;
    before(async () => {
      appB = createTestApp();
      b = contextOf(appB);
      await listening(b);
    });

    it('a path remembered as unknown answers 301 once a redirect is added there, and 404 again once it is removed', async () => {
      const target = await makePage(ctx, { title: 'Cible', slug: 'cible' });
      await heard(b, () => Promise.resolve());
      for (const path of ['/ancienne', byPath('ancienne')]) expect((await request(appB).get(path)).status, path).to.equal(404);
      expect((await countStatements(b, () => request(appB).get('/ancienne'))).count).to.equal(0);

      let redirectId = 0;
      await heard(b, async () => (redirectId = (await createRedirect(ctx, { from: '/ancienne', page_id: target.id })).id));
      expect((await request(appB).get('/ancienne')).headers.location).to.equal('/cible');
      expect((await request(appB).get(byPath('ancienne'))).headers.location).to.equal('/app/api/pages/by-path?path=cible');
      expect((await countStatements(b, () => request(appB).get('/ancienne'))).count).to.equal(0);

      await heard(b, () => deleteRedirect(ctx, redirectId));
      for (const path of ['/ancienne', byPath('ancienne')]) expect((await request(appB).get(path)).status, path).to.equal(404);
    });

    it('a cached 301 follows a later move of its target, turns 404 when the target turns private, and 410 when it is deleted', async () => {
      const { archives, section, page } = await makeSection(ctx);
      await heard(b, () => updatePage(ctx, section, { parent_id: archives }));
      expect((await request(appB).get('/rubrique/section/page')).headers.location).to.equal('/archives/section/page');
      expect((await countStatements(b, () => request(appB).get('/rubrique/section/page'))).count).to.equal(0);

      await heard(b, () => updatePage(ctx, archives, { slug: 'fonds' }));
      expect((await request(appB).get('/rubrique/section/page')).headers.location).to.equal('/fonds/section/page');

      await heard(b, () => updatePage(ctx, section, { visibility: 'private' }));
      expect((await request(appB).get('/rubrique/section/page')).status).to.equal(404);
      await heard(b, () => updatePage(ctx, section, { visibility: 'public' }));
      expect((await request(appB).get(byPath('rubrique/section/page'))).headers.location).to.equal('/app/api/pages/by-path?path=fonds%2Fsection%2Fpage');

      await heard(b, () => deletePage(ctx, page));
      expect((await request(appB).get('/rubrique/section/page')).status).to.equal(410);
      expect((await request(appB).get(byPath('rubrique/section/page'))).status).to.equal(410);
    });

    it('a cached 410 gives way to a page created at that path', async () => {
      const { rubrique, page } = await makeSection(ctx);
      await updatePage(ctx, page, { slug: 'autre' });
      await heard(b, () => deletePage(ctx, page));
      expect((await request(appB).get('/rubrique/section/page')).status).to.equal(410);
      expect((await request(appB).get('/rubrique/section/autre')).status).to.equal(410);

      const section = (await ctx.db('app_pages').where({ slug: 'section' }).first('id'))!.id;
      await heard(b, () => makePage(ctx, { title: 'Renaissance', slug: 'page', parent_id: section }));
      const res = await request(appB).get('/rubrique/section/page');
      expect(res.status).to.equal(200);
      expect(res.text).to.include('Renaissance');
      expect((await request(appB).get('/rubrique/section/autre')).status).to.equal(410);
      expect(rubrique).to.be.a('number');
    });
  });
});
