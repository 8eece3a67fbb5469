// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// A new page in Chromium, JavaScript on and off: «Nouvelle page» then «Créer la page»
// leaves it off the site (404, shown «Jamais publiée» in the tree) until «Publier».
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { useBrowserSite } from '../support/browser.js';
import { caller } from '../support/fixtures.js';

describe('a new page in a browser (JavaScript on and off)', function () {
  this.timeout(120_000);
  const site = useBrowserSite();

  async function editorTab(javaScriptEnabled: boolean): Promise<Page> {
    const { cookie } = await caller(site.ctx, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
    return site.open({ javaScriptEnabled, cookie, timeoutMs: 10_000 });
  }

  for (const javaScriptEnabled of [false, true]) {
    const mode = javaScriptEnabled ? 'JavaScript on' : 'JavaScript off';

    it(`${mode}: a page made with «Nouvelle page» stays off the site, «Jamais publiée», until «Publier»`, async () => {
      const tab = await editorTab(javaScriptEnabled);
      await tab.goto(`${site.baseUrl}/admin/pages/new`);
      await tab.getByLabel('Titre', { exact: true }).fill('Horaires d’ouverture');
      await tab.getByRole('button', { name: 'Créer la page' }).click();
      await tab.waitForURL(/\/admin\/pages\/\d+$/);
      expect(await tab.locator('.page-state').textContent()).to.include('Jamais publiée');
      const row = (await site.ctx.db('app_pages').where({ slug: 'horaires-d-ouverture' }).first())!;
      expect(row).to.include({ published_revision: null, draft_revision: 1 });
      expect((await tab.request.get(`${site.baseUrl}/horaires-d-ouverture`)).status()).to.equal(404);
      await tab.goto(`${site.baseUrl}/admin/pages`);
      expect(await tab.locator('.tree-row', { hasText: 'Horaires d’ouverture' }).textContent()).to.include('Jamais publiée');

      await tab.goto(`${site.baseUrl}/admin/pages/${row.id}`);
      await tab.getByRole('button', { name: 'Publier' }).click();
      await tab.waitForLoadState();
      expect(await tab.locator('.admin-main > .alert').first().textContent()).to.equal('La page est publiée.');
      expect(await site.ctx.db('app_pages').where({ id: row.id }).first()).to.include({ visibility: 'public', published_revision: 3, draft_revision: null });
      await tab.goto(`${site.baseUrl}/horaires-d-ouverture`);
      expect(await tab.locator('h1').textContent()).to.equal('Horaires d’ouverture');
    });
  }
});
