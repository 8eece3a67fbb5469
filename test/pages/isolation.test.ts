// Two applications in one process, each on its own database: nothing of the pages
// module is shared between them (no pool, registry, catalog or warn-once memo at
// module level), so each sees only its own pages through every surface.
import { readdirSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { migrateLatest } from '../../lib/migrations.js';
import { testMigrationDirectories } from '../support/modules.js';
import { getPublishedPageBySegments, listPublicChildPages } from '../../models/pages/public.js';
import { createTables, dropTables, pagesMigrationsDirectory } from '../../models/pages/schema.js';
import * as settingsSchema from '../../models/settings/schema.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';
import { makePage, userWith } from './helpers.js';

describe('pages module: two applications on two databases in one process', () => {
  let first: App;
  let second: App;
  let one: AppContext;
  let two: AppContext;
  let secondName: string;

  before(async function () {
    this.timeout(60_000);
    const { adminUrl, name } = testDatabase();
    secondName = `${name}_second`;
    const url = await createScratchDatabase(adminUrl, secondName);
    first = createTestApp({ APP_NAME: 'Premier' });
    second = createTestApp({ APP_NAME: 'Second', DATABASE_URL: url });
    one = contextOf(first);
    two = contextOf(second);
    await migrateLatest(two.db, { directories: testMigrationDirectories() });
  });
  after(async () => {
    if (second) await closeTestApp(second);
    if (secondName) await dropScratchDatabase(testDatabase().adminUrl, secondName);
  });
  beforeEach(async () => {
    await resetData(one);
    await resetData(two);
  });

  it('each sees only its own pages: server functions, public API, admin API, site and sitemap', async () => {
    await makePage(one, { title: 'Chez le premier', slug: 'premier' });
    await makePage(two, { title: 'Chez le second', slug: 'second' });

    expect(await getPublishedPageBySegments(one, ['premier'])).to.include({ title: 'Chez le premier' });
    expect(await getPublishedPageBySegments(one, ['second'])).to.equal(null);
    expect(await getPublishedPageBySegments(two, ['second'])).to.include({ title: 'Chez le second' });
    expect(await getPublishedPageBySegments(two, ['premier'])).to.equal(null);
    expect((await listPublicChildPages(one, null)).map((page) => page.url)).to.deep.equal(['/premier']);
    expect((await listPublicChildPages(two, null)).map((page) => page.url)).to.deep.equal(['/second']);

    expect((await request(first).get('/app/api/pages')).body.items.map((page: { url: string }) => page.url)).to.deep.equal(['/premier']);
    expect((await request(second).get('/app/api/pages')).body.items.map((page: { url: string }) => page.url)).to.deep.equal(['/second']);
    expect((await request(first).get('/second')).status).to.equal(404);
    expect((await request(second).get('/second')).text).to.include('<title>Chez le second — Second</title>');
    expect((await request(first).get('/sitemap-1.xml')).text)
      .to.include('/premier')
      .and.not.include('/second');

    const admin = await userWith(two, ['admin.access', 'pages.view']);
    const list = await request(second).get('/app/api/admin/pages').set('Cookie', admin.cookie);
    expect(list.body.items.map((page: { title: string }) => page.title)).to.deep.equal(['Chez le second']);
    // The session lives in the second database only.
    expect((await request(first).get('/app/api/admin/pages').set('Cookie', admin.cookie)).status).to.equal(401);
  });

  it('keeps its own module registration and its own warn-once memo', async () => {
    expect(one.site.apiRoutes).to.not.equal(two.site.apiRoutes);
    expect(one.site.apiRoutes.filter((row) => row.path === '/pages' && row.access === 'public')).to.have.length(1);
    expect(two.site.apiRoutes.filter((row) => row.path === '/pages' && row.access === 'public')).to.have.length(1);

    const warnings = new Map<AppContext, unknown[]>([
      [one, []],
      [two, []],
    ]);
    const originals = [one, two].map((ctx) => [ctx, ctx.logger.warn] as const);
    for (const ctx of [one, two]) {
      (ctx.logger as { warn: unknown }).warn = (details: unknown) => void warnings.get(ctx)!.push(details);
    }
    try {
      for (const ctx of [one, two]) await makePage(ctx, { title: 'Mystère', blocks: [{ type: 'inconnu-isolation' }] });
      for (const app of [first, first, second, second]) expect((await request(app).get('/mystere')).status).to.equal(200);
    } finally {
      for (const [ctx, warn] of originals) (ctx.logger as { warn: unknown }).warn = warn;
    }
    for (const ctx of [one, two]) {
      expect(warnings.get(ctx)!.filter((details) => (details as { type?: string }).type === 'inconnu-isolation')).to.have.length(1);
    }
  });

  it('drops and creates its own tables (SPEC dropTables/createTables) through its migrations, leaving the other database alone', async () => {
    await makePage(one, { title: 'Reste' });
    // Every migration of the module's folder, the first ones named (later ones join the list).
    const migrations = readdirSync(pagesMigrationsDirectory())
      .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
      .map((file) => file.replace(/\.(ts|js)$/, ''))
      .sort();
    expect(migrations.slice(0, 5)).to.deep.equal([
      '20261121000100_pages_tables',
      '20261123000100_pages_tree_state',
      '20261123000200_pages_title_search',
      '20261124000500_pages_public_notify',
      '20261125000100_pages_revisions',
    ]);
    // The settings module, registered after pages, references its pages: it goes first and comes back last.
    expect(await settingsSchema.dropTables(two.db)).to.deep.equal(['20261126004000_settings_tables']);
    expect(await dropTables(two.db)).to.deep.equal([...migrations].reverse());
    expect(await two.db.schema.hasTable('app_pages')).to.equal(false);
    expect(await two.db('app_auth_permission_sections').where({ key: 'pages' }).first()).to.equal(undefined);
    expect(await two.db.schema.hasTable('app_auth_users')).to.equal(true);
    expect(await createTables(two.db)).to.deep.equal(migrations);
    expect(await createTables(two.db)).to.deep.equal([]);
    expect(await settingsSchema.createTables(two.db)).to.deep.equal(['20261126004000_settings_tables']);
    await makePage(two, { title: 'De retour' });
    expect((await request(second).get('/de-retour')).status).to.equal(200);
    expect((await request(first).get('/reste')).status).to.equal(200);
  });
});
