// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The error summary takes the focus when a refused form comes back, in a real browser,
// with JavaScript off (autofocus alone), and its link leads to the field in error.
import type { Server } from 'node:http';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';

// The anti-bot check refuses forms submitted under 1.5 s after rendering.
const HUMAN_PAUSE_MS = 1600;

describe('the error summary in a browser', function () {
  this.timeout(60_000);
  let browser: Browser;
  let server: Server;
  let baseUrl: string;
  let ctx: AppContext;

  before(async function () {
    if (!chromiumAvailable()) {
      this.skip();
    }
    const app = createTestApp();
    ctx = contextOf(app);
    await resetData(ctx);
    ({ server, baseUrl } = await listenOnFreePort(app));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('is focused without JavaScript, titled «Erreur : », and its link moves to the field', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/auth`);
    await page.getByLabel('Nom').fill('Ada');
    await page.getByLabel('Courriel').fill('ada@example.com');
    await page.locator('#f-password').fill('short');
    await page.waitForTimeout(HUMAN_PAUSE_MS);
    await page.getByRole('button', { name: 'Créer le compte administrateur' }).click();
    await page.waitForLoadState();

    expect(await page.title()).to.match(/^Erreur\u00a0: /);
    expect(await page.evaluate(() => document.activeElement?.className)).to.equal('error-summary');
    await page.getByRole('link', { name: 'Mot de passe' }).click();
    expect(new URL(page.url()).hash).to.equal('#f-password');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('f-password');
    expect(await ctx.db('app_auth_users')).to.have.length(0);
    await context.close();
  });
});
