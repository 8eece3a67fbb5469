// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The public site and a preview link in Chromium, with JavaScript on and off: the
// header's navigation and the breadcrumbs, one font family on every text, and a
// preview link made through the API that shows the draft (the public URL the live
// page) until the application clock passes its expiry; the default look's reading
// column, dark mode and print sheet.
import type { Server } from 'node:http';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { saveDraft } from '../../models/pages/drafts.js';
import { PREVIEW_LIFETIME_MS } from '../../models/pages/preview-links.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';
import { makeChain, makePage, userWith } from './helpers.js';

const NOW = Date.parse('2031-05-06T07:08:09.000Z');

describe('the public site and a preview link in a browser', function () {
  this.timeout(60_000);
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
  beforeEach(async () => {
    await resetData(ctx);
    ctx.clock.set(() => NOW);
  });

  it('sets the text in a column of about 65 characters, follows the reader’s dark mode, and prints the text alone', async () => {
    await makeChain(ctx, 2, 's', { blocks: [{ type: 'paragraph', text: 'Un paragraphe assez long pour remplir la colonne de lecture. '.repeat(6) }] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await page.goto(baseUrl + '/s1/s2');
    const column = await page.evaluate(() => {
      const paragraph = document.querySelector('.block-paragraph')!;
      const probe = document.createElement('span');
      probe.textContent = '0';
      paragraph.append(probe);
      return { width: paragraph.getBoundingClientRect().width, zero: probe.getBoundingClientRect().width };
    });
    expect(column.width / column.zero).to.be.within(60, 66);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).to.equal('rgb(18, 20, 24)');
    await page.emulateMedia({ media: 'print', colorScheme: 'light' });
    for (const hidden of ['.site-nav', '.breadcrumbs', '.skip-link']) expect(await page.locator(hidden).isVisible(), hidden).to.equal(false);
    expect(await page.locator('h1').textContent()).to.equal('s2');
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('h1')!).color)).to.equal('rgb(0, 0, 0)');
    await context.close();
  });

  for (const javaScriptEnabled of [true, false]) {
    describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
      async function open(url: string): Promise<{ page: Page; status: number }> {
        const context = await browser.newContext({ javaScriptEnabled });
        const page = await context.newPage();
        const response = await page.goto(baseUrl + url);
        return { page, status: response!.status() };
      }

      it('shows the navigation and the breadcrumbs, every text in one font family', async () => {
        await makeChain(ctx, 3, 's', { blocks: [{ type: 'paragraph', text: 'Un *mot* et un [lien](/s1).' }] });
        await makePage(ctx, { title: 'Contact' });
        const { page, status } = await open('/s1/s2/s3');
        expect(status).to.equal(200);
        expect(await page.locator('.site-nav a').allTextContents()).to.deep.equal(['Accueil', 'Contact', 's1']);
        expect(await page.locator('.site-nav a[aria-current="true"]').textContent()).to.equal('s1');
        expect(await page.locator('.breadcrumbs li').allTextContents()).to.deep.equal(['Accueil', 's1', 's2', 's3']);
        expect(await page.locator('.block-paragraph em').textContent()).to.equal('mot');
        const families = await page.evaluate(() =>
          ['.site-name', '.site-nav a', '.breadcrumbs a', 'h1', '.block-paragraph', '.site-footer a'].map(
            (selector) => getComputedStyle(document.querySelector(selector)!).fontFamily,
          ),
        );
        expect(new Set(families).size, families.join(' | ')).to.equal(1);
        await page.context().close();
      });

      it('opens a preview link made through the API: the draft, noindex; the public URL the live page; refused once expired', async () => {
        const [, leaf] = await makeChain(ctx, 2, 's', { blocks: [{ type: 'paragraph', text: 'Version en ligne' }] });
        await saveDraft(ctx, leaf, { blocks: [{ type: 'paragraph', text: 'Version brouillon' }] });
        const editor = await userWith(ctx, ['admin.access', 'pages.manage', 'pages.publish']);
        const made = await request(baseUrl).post(`/app/api/admin/pages/${leaf}/preview-link`).set('Cookie', editor.cookie).set('Origin', baseUrl).send({});
        expect(made.status).to.equal(201);
        const previewPath = new URL(made.body.url).pathname;

        const preview = await open(previewPath);
        expect(preview.status).to.equal(200);
        expect(await preview.page.locator('.block-paragraph').textContent()).to.equal('Version brouillon');
        expect(await preview.page.locator('meta[name="robots"]').getAttribute('content')).to.equal('noindex');
        expect(await preview.page.locator('.preview-banner').textContent()).to.include('brouillon');
        await preview.page.context().close();

        const live = await open('/s1/s2');
        expect(await live.page.locator('.block-paragraph').textContent()).to.equal('Version en ligne');
        await live.page.context().close();

        ctx.clock.set(() => NOW + PREVIEW_LIFETIME_MS + 1000);
        const expired = await open(previewPath);
        expect(expired.status).to.equal(410);
        expect(await expired.page.locator('h1').textContent()).to.equal('Lien d’aperçu expiré');
        expect(await expired.page.content()).to.not.include('Version brouillon');
        await expired.page.context().close();
      });
    });
  }
});
