// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// Switching theme from the settings screen in a real browser, with JavaScript on and
// off: the owner picks the test theme by its thumbnail's label and saves; the public
// site shows the theme's layout, its block and its stylesheet's rule.
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { useBrowserSite } from '../support/browser.js';
import { makePage, userWith } from '../pages/helpers.js';
import { makeThemesDir, TEST_THEME } from './fixture.js';

describe('switching theme in a browser', function () {
  this.timeout(90_000);
  const themesDir = makeThemesDir();
  const site = useBrowserSite({ APP_NAME: 'Site navigateur', THEMES_DIR: themesDir });
  after(() => rmSync(themesDir, { recursive: true, force: true }));

  for (const javaScriptEnabled of [true, false]) {
    it(`chooses the test theme on the settings screen; the site uses it (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
      await site.ctx.db('app_site_settings').del();
      await makePage(site.ctx, { title: 'Accueil', slug: 'accueil', blocks: [{ type: 'callout', tone: 'info', text: 'Bienvenue.' }] });
      const owner = await userWith(site.ctx, 'admin');
      const page = await site.open({ javaScriptEnabled, cookie: owner.cookie });
      await page.goto(`${site.baseUrl}/admin/settings`);
      expect(await page.locator(`img.theme-thumbnail[src^="/theme/${TEST_THEME}/thumbnail."]`).count()).to.equal(1);
      expect(await page.locator('input[name="theme"][value="casse"]').isDisabled()).to.equal(true);
      await page.getByLabel('Thème d’essai', { exact: false }).check();
      await Promise.all([page.waitForURL(`${site.baseUrl}/admin/settings`), page.getByRole('button', { name: 'Enregistrer les réglages' }).click()]);
      expect(await page.locator('body').textContent()).to.include('Les réglages du site sont enregistrés.');
      expect((await site.ctx.db('app_site_settings').first())?.theme).to.equal(TEST_THEME);

      const visitor = await page.context().newPage();
      expect((await visitor.goto(`${site.baseUrl}/`))!.status()).to.equal(200);
      expect(await visitor.locator('body').getAttribute('data-theme')).to.equal(TEST_THEME);
      expect(await visitor.locator('body').getAttribute('class')).to.equal('layout-essai');
      const border = await visitor.locator('aside.callout').evaluate((element) => getComputedStyle(element).borderTopStyle);
      expect(border).to.equal('solid');
      await site.ctx.db('app_site_settings').del();
    });
  }
});
