// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// A new page in Chromium, JavaScript on and off: «Nouvelle page» then «Créer la page»
// leaves it off the site (404, shown «Jamais publiée» in the tree) until «Publier».
import type { Server } from 'node:http';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';
import { caller } from '../support/fixtures.js';

describe('a new page in a browser (JavaScript on and off)', function () {
  this.timeout(120_000);
  let server: Server;
  let baseUrl: string;
  let browser: Browser;
  let ctx: AppContext;
  const contexts: BrowserContext[] = [];

  before(async function () {
    if (!chromiumAvailable()) return this.skip();
    const app = createTestApp();
    ctx = contextOf(app);
    ({ server, baseUrl } = await listenOnFreePort(app));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (server) await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => resetData(ctx));
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  async function editorTab(javaScriptEnabled: boolean): Promise<Page> {
    const { cookie } = await caller(ctx, { permissions: ['admin.access', 'pages.view', 'pages.manage'] });
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const [name, ...value] = cookie.split('=');
    await context.addCookies([{ name, value: value.join('='), url: baseUrl }]);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    return page;
  }

  for (const javaScriptEnabled of [false, true]) {
    const mode = javaScriptEnabled ? 'JavaScript on' : 'JavaScript off';

    it(`${mode}: a page made with «Nouvelle page» stays off the site, «Jamais publiée», until «Publier»`, async () => {
      const tab = await editorTab(javaScriptEnabled);
      await tab.goto(`${baseUrl}/admin/pages/new`);
      await tab.getByLabel('Titre', { exact: true }).fill('Horaires d’ouverture');
      await tab.getByRole('button', { name: 'Créer la page' }).click();
      await tab.waitForURL(/\/admin\/pages\/\d+$/);
      expect(await tab.locator('.page-state').textContent()).to.include('Jamais publiée');
      const row = (await ctx.db('app_pages').where({ slug: 'horaires-d-ouverture' }).first())!;
      expect(row).to.include({ published_revision: null, draft_revision: 1 });
      expect((await tab.request.get(`${baseUrl}/horaires-d-ouverture`)).status()).to.equal(404);
      await tab.goto(`${baseUrl}/admin/pages`);
      expect(await tab.locator('.tree-row', { hasText: 'Horaires d’ouverture' }).textContent()).to.include('Jamais publiée');

      await tab.goto(`${baseUrl}/admin/pages/${row.id}`);
      await tab.getByRole('button', { name: 'Publier' }).click();
      await tab.waitForLoadState();
      expect(await tab.locator('.admin-main > .alert').first().textContent()).to.equal('La page est publiée.');
      expect(await ctx.db('app_pages').where({ id: row.id }).first()).to.include({ visibility: 'public', published_revision: 3, draft_revision: null });
      await tab.goto(`${baseUrl}/horaires-d-ouverture`);
      expect(await tab.locator('h1').textContent()).to.equal('Horaires d’ouverture');
    });
  }
});
