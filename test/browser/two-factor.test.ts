// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// Two-step verification in a real browser (Debian chromium driven by playwright-core):
// enrol from /account by reading the secret from the page (as an authenticator app would
// from the QR code), log out, log in with a generated code. Real clock: codes computed
// with otpauth at the time of typing. Screenshots land in test-artifacts/two-factor/.
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { type Browser, type Page } from 'playwright-core';
import { projectRoot } from '../../lib/paths.js';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';
import { makeUser, PASSWORD } from '../support/fixtures.js';
import { totpAt } from '../support/two-factor.js';

const ARTIFACTS = path.join(projectRoot, 'test-artifacts', 'two-factor');
// The anti-bot check refuses /auth forms submitted under 1.5 s after rendering.
const HUMAN_PAUSE_MS = 1600;

describe('two-step verification in a browser', function () {
  this.timeout(60_000);
  let browser: Browser;
  let server: Server;
  let baseUrl: string;
  let ctx: AppContext;
  const cspViolations: string[] = [];

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    mkdirSync(ARTIFACTS, { recursive: true });
    const app = createTestApp({ PASSWORD_HASH_COST: '4' });
    ctx = contextOf(app);
    await resetData(ctx);
    ({ server, baseUrl } = await listenOnFreePort(app));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  async function openPage(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1024, height: 900 } });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
    return page;
  }

  async function logIn(page: Page): Promise<void> {
    await page.goto(`${baseUrl}/auth/login`);
    await page.getByLabel('Courriel').fill('ada@example.com');
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.waitForTimeout(HUMAN_PAUSE_MS);
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
  }

  it('enrols from /account reading the secret on the page, logs out, and logs in again with a generated code', async () => {
    const user = await makeUser(ctx, { email: 'ada@example.com', name: 'Ada' });
    const page = await openPage();
    await logIn(page);
    await page.waitForURL(`${baseUrl}/account`);

    await page.getByRole('link', { name: 'Gérer la vérification en deux étapes' }).click();
    await page.waitForURL(`${baseUrl}/account/2fa`);
    expect(await page.title()).to.equal('Vérification en deux étapes — Site de test');
    await page.getByLabel('Mot de passe actuel').fill(PASSWORD);
    await page.getByRole('button', { name: 'Commencer l’activation' }).click();
    await page.waitForURL(`${baseUrl}/account/2fa`);
    // The QR code is inline SVG markup (no script): the page's CSP lets it show.
    const qr = page.locator('figure.qr-code svg');
    expect(await qr.isVisible()).to.equal(true);
    const box = await qr.boundingBox();
    expect(box!.width).to.be.above(50);
    const secret = (await page.locator('#two-factor-secret').textContent())!.trim();
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'setup.png'), fullPage: true });

    await page.getByLabel('Premier code affiché par l’application').fill(totpAt(secret, Date.now()));
    await page.getByRole('button', { name: 'Activer' }).click();
    await page.waitForLoadState();
    const codes = await page.locator('ol.recovery-codes code').allTextContents();
    expect(codes).to.have.length(10);
    await page.screenshot({ path: path.join(ARTIFACTS, 'recovery-codes.png'), fullPage: true });

    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await page.waitForURL(`${baseUrl}/auth/login?done=logout`);

    await logIn(page);
    await page.waitForURL(`${baseUrl}/auth/2fa`);
    expect(await page.title()).to.equal('Vérification en deux étapes — Site de test');
    expect(await page.locator('h1').textContent()).to.equal('Vérification en deux étapes');
    await page.screenshot({ path: path.join(ARTIFACTS, 'second-step.png'), fullPage: true });
    // The enrolment used the current 30-second step's code, which is accepted once: the
    // app's next code (one step ahead, within the allowed drift) is what a person types
    // when the first one has just been used.
    await page.getByLabel('Code de vérification').fill(totpAt(secret, Date.now() + 30_000));
    await page.waitForTimeout(HUMAN_PAUSE_MS);
    await page.getByRole('button', { name: 'Vérifier' }).click();
    await page.waitForURL(`${baseUrl}/account`);
    expect(await page.locator('h1').textContent()).to.equal('Mon profil');
    expect(await ctx.db('app_auth_sessions').where({ user_id: user.id })).to.have.length(1);
    await page.close();
    expect(cspViolations).to.deep.equal([]);
  });
});
