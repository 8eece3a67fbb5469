// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// Scheduled publishing as an editor meets it, in Chromium with JavaScript on and off:
// the text changed and «Programmer la publication» pressed for a time on the site's wall
// clock; the site keeps the live page until that time comes (the app's clock is injected
// and its scheduler runs as on a server), then shows the new text by itself.
import type { Server } from 'node:http';
import { expect } from 'chai';
import type { Browser, BrowserContext } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { createPage, getPage } from '../../models/pages/pages.js';
import { startScheduledPublishing } from '../../services/scheduled-publishing.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';
import { caller } from '../support/fixtures.js';
import { withoutIds } from './helpers.js';

// 15 January 2026, 9 h 00 UTC: 10 h 00 in Paris (UTC+1 in winter).
const T0 = Date.UTC(2026, 0, 15, 9, 0);
const MINUTE = 60_000;

describe('scheduled publishing in a browser (JavaScript on and off)', function () {
  this.timeout(120_000);
  let server: Server;
  let baseUrl: string;
  let browser: Browser;
  let ctx: AppContext;
  let stopScheduler: (() => void) | undefined;
  const contexts: BrowserContext[] = [];

  before(async function () {
    if (!chromiumAvailable()) return this.skip();
    const app = createTestApp({ APP_TIMEZONE: 'Europe/Paris' });
    ctx = contextOf(app);
    ({ server, baseUrl } = await listenOnFreePort(app));
    browser = await launchChromium();
  });
  after(async () => {
    stopScheduler?.();
    await ctx?.background.settle();
    await browser?.close();
    if (server) await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(async () => {
    await resetData(ctx);
    ctx.clock.set(() => T0);
  });
  afterEach(async () => {
    stopScheduler?.();
    stopScheduler = undefined;
    await ctx.background.settle();
    for (const context of contexts.splice(0)) await context.close();
  });

  for (const javaScriptEnabled of [false, true]) {
    it(`${javaScriptEnabled ? 'JavaScript on' : 'JavaScript off'}: a page scheduled for 10 h 30 stays as it was on the site until then, and appears by itself once the time has come`, async () => {
      const page = await createPage(ctx, { title: 'Annonce', blocks: [{ type: 'paragraph', text: 'Ancien texte' }] });
      const session = (await caller(ctx, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] })).cookie;
      const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
      contexts.push(context);
      const [name, ...value] = session.split('=');
      await context.addCookies([{ name, value: value.join('='), url: baseUrl }]);
      const tab = await context.newPage();
      tab.setDefaultTimeout(10_000);

      await tab.goto(`${baseUrl}/admin/pages/${page.id}`);
      await tab.locator('#b-0-text').fill('Nouveau texte');
      // «Programmer…» in the editor's bar opens the schedule's section (the browser does, without JavaScript).
      await tab.getByRole('link', { name: 'Programmer…' }).click();
      await tab.locator('#schedule-at').fill('2026-01-15T10:30');
      await tab.getByRole('button', { name: 'Programmer la publication' }).click();
      await tab.waitForLoadState();
      // French puts no-break spaces in «10 h 30»: compared with every space made plain.
      expect((await tab.locator('body').textContent())?.replace(/\s+/g, ' ')).to.include('La publication est programmée le 15 janvier 2026 à 10 h 30.');
      const stored = await getPage(ctx, page.id);
      const scheduled = (await ctx.db('app_pages').where({ id: page.id }).first('scheduled_at', 'draft_revision'))!;
      expect(scheduled.scheduled_at?.toISOString()).to.equal(new Date(T0 + 30 * MINUTE).toISOString());
      expect(scheduled.draft_revision).to.be.a('number');
      expect(withoutIds(stored.blocks)).to.deep.equal([{ type: 'paragraph', text: 'Ancien texte' }]);

      // The scheduler runs as on a server; a minute before the time nothing moves.
      stopScheduler = startScheduledPublishing(ctx, { intervalMs: 20 });
      ctx.clock.set(() => T0 + 29 * MINUTE);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await ctx.background.settle();
      const site = await context.newPage();
      await site.goto(`${baseUrl}/annonce`);
      expect(await site.locator('main').textContent())
        .to.include('Ancien texte')
        .and.not.include('Nouveau texte');

      ctx.clock.set(() => T0 + 30 * MINUTE);
      // Waits for the outcome (the test's timeout bounds it), asserts no duration.
      while ((await ctx.db('app_pages').where({ id: page.id }).first('scheduled_at'))?.scheduled_at !== null) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await site.reload();
      expect(await site.locator('main').textContent())
        .to.include('Nouveau texte')
        .and.not.include('Ancien texte');
      expect(withoutIds((await getPage(ctx, page.id)).blocks)).to.deep.equal([{ type: 'paragraph', text: 'Nouveau texte' }]);
    });
  }
});
