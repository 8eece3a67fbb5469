// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The settings screen in a real browser, with JavaScript on and off: the owner finds a
// page with the home page picker's search, chooses it, sets the title and the accent
// colour, saves; the public site shows the title, the colour's stylesheet and the
// chosen page at `/`.
import type { Server } from 'node:http';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';
import { makePage, userWith } from '../pages/helpers.js';

describe('the settings screen in a browser', function () {
  this.timeout(90_000);
  let server: Server;
  let baseUrl: string;
  let browser: Browser;
  let ctx: AppContext;

  before(async function () {
    if (!chromiumAvailable()) return this.skip();
    const app = createTestApp({ APP_NAME: 'Site navigateur' });
    ctx = contextOf(app);
    ({ server, baseUrl } = await listenOnFreePort(app));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (server) await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => resetData(ctx));

  for (const javaScriptEnabled of [true, false]) {
    it(`sets the title, the accent colour and the home page from the screen (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
      const home = await makePage(ctx, { title: 'Le jardin', slug: 'jardin', blocks: [{ type: 'paragraph', text: 'Bienvenue au jardin.' }] });
      await makePage(ctx, { title: 'Autre', slug: 'autre' });
      const owner = await userWith(ctx, 'admin');
      const context = await browser.newContext({ javaScriptEnabled });
      try {
        const [name, value] = owner.cookie.split('=');
        await context.addCookies([{ name, value, url: baseUrl }]);
        const page = await context.newPage();
        page.setDefaultTimeout(15_000);
        await page.goto(`${baseUrl}/admin/settings`);
        await page.getByLabel('Chercher une page', { exact: true }).fill('jardin');
        await Promise.all([page.waitForURL(/home_q=jardin/), page.getByRole('button', { name: 'Chercher' }).click()]);
        await page.getByLabel('Le jardin', { exact: false }).check();
        await page.getByLabel('Titre du site', { exact: true }).fill('Les Jardins partagés');
        await page.getByLabel('Couleur d’accent', { exact: true }).fill('#2f6b3a');
        await Promise.all([page.waitForURL(`${baseUrl}/admin/settings`), page.getByRole('button', { name: 'Enregistrer les réglages' }).click()]);
        expect(await page.locator('body').textContent()).to.include('Les réglages du site sont enregistrés.');
        expect(await ctx.db('app_site_settings').first()).to.include({ title: 'Les Jardins partagés', accent_colour: '#2f6b3a', home_page_id: home.id });

        const site = await context.newPage();
        const response = await site.goto(`${baseUrl}/`);
        expect(response!.status()).to.equal(200);
        expect(await site.title()).to.equal('Le jardin — Les Jardins partagés');
        expect(await site.locator('.site-name').textContent()).to.include('Les Jardins partagés');
        expect(await site.locator('main').textContent()).to.include('Bienvenue au jardin.');
        const accent = await site.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
        expect(accent).to.equal('#2f6b3a');
      } finally {
        await context.close();
      }
    });
  }
});
