// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The settings screen in a real browser, with JavaScript on and off: the owner finds a
// page with the home page picker's search, chooses it, sets the title and the accent
// colour, saves, then sends a logo; the public site shows the title, the logo, the
// colour's stylesheet and the chosen page at `/`.
import { expect } from 'chai';
import { useBrowserSite } from '../support/browser.js';
import { makePage, userWith } from '../pages/helpers.js';
import { PNG_1X1 } from '../support/fixtures.js';

describe('the settings screen in a browser', function () {
  this.timeout(90_000);
  const site = useBrowserSite({ APP_NAME: 'Site navigateur' });

  for (const javaScriptEnabled of [true, false]) {
    it(`sets the title, the accent colour, the home page and the logo from the screen (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
      const home = await makePage(site.ctx, { title: 'Le jardin', slug: 'jardin', blocks: [{ type: 'paragraph', text: 'Bienvenue au jardin.' }] });
      await makePage(site.ctx, { title: 'Autre', slug: 'autre' });
      const owner = await userWith(site.ctx, 'admin');
      const page = await site.open({ javaScriptEnabled, cookie: owner.cookie });
      await page.goto(`${site.baseUrl}/admin/settings`);
      await page.getByLabel('Chercher une page', { exact: true }).fill('jardin');
      await Promise.all([page.waitForURL(/home_q=jardin/), page.getByRole('button', { name: 'Chercher' }).click()]);
      await page.getByLabel('Le jardin', { exact: false }).check();
      await page.getByLabel('Titre du site', { exact: true }).fill('Les Jardins partagés');
      await page.getByLabel('Couleur d’accent', { exact: true }).fill('#2f6b3a');
      await Promise.all([page.waitForURL(`${site.baseUrl}/admin/settings`), page.getByRole('button', { name: 'Enregistrer les réglages' }).click()]);
      expect(await page.locator('body').textContent()).to.include('Les réglages du site sont enregistrés.');
      expect(await site.ctx.db('app_site_settings').first()).to.include({ title: 'Les Jardins partagés', accent_colour: '#2f6b3a', home_page_id: home.id });
      await page.locator('#image-logo-file').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG_1X1 });
      const logoPanel = page.locator('section[aria-labelledby="image-logo-title"]');
      await Promise.all([page.waitForURL(`${site.baseUrl}/admin/settings`), logoPanel.getByRole('button', { name: 'Envoyer' }).click()]);
      const logoUrl = (await site.ctx.db('app_site_settings').first())?.logo ?? '';
      expect(logoUrl).to.match(/^\/uploads\/site\/[a-f0-9]{32}\.png$/);
      expect(await logoPanel.locator('img.media-preview').getAttribute('src')).to.equal(logoUrl);

      const visitor = await page.context().newPage();
      const response = await visitor.goto(`${site.baseUrl}/`);
      expect(response!.status()).to.equal(200);
      expect(await visitor.title()).to.equal('Le jardin — Les Jardins partagés');
      expect(await visitor.locator('.site-name').textContent()).to.include('Les Jardins partagés');
      expect(await visitor.locator('main').textContent()).to.include('Bienvenue au jardin.');
      const logo = visitor.locator('.site-name img.site-logo');
      expect(await logo.getAttribute('src')).to.equal(logoUrl);
      expect(await logo.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).to.equal(true);
      const accent = await visitor.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
      expect(accent).to.equal('#2f6b3a');
    });
  }
});
