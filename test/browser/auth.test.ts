// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The auth pages in a real browser (Debian chromium driven by playwright-core): first
// run on an empty database, logout, login, and a screenshot of each page with its tab
// title checked against SPEC A2. Screenshots land in test-artifacts/auth/.
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { type Browser, type Page } from 'playwright-core';
import { projectRoot } from '../../lib/paths.js';
import { requestPasswordReset } from '../../models/auth/recovery.js';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';

const ARTIFACTS = path.join(projectRoot, 'test-artifacts', 'auth');
const APP_NAME = 'Atelier';
const PASSWORD = 'correct horse battery';
// The anti-bot check refuses forms submitted under 1.5 s after rendering.
const HUMAN_PAUSE_MS = 1600;

describe('auth pages in a browser', function () {
  this.timeout(60_000);
  let browser: Browser;
  let server: Server;
  let baseUrl: string;
  let ctx: AppContext;
  const cspViolations: string[] = [];

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    mkdirSync(ARTIFACTS, { recursive: true });
    const app = createTestApp({ APP_NAME, PASSWORD_HASH_COST: '4' });
    ctx = contextOf(app);
    await resetData(ctx);
    ({ server, baseUrl } = await listenOnFreePort(app));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  async function openPage(width = 1024): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height: 800 } });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
    return page;
  }

  it('creates the administrator on an empty database, lands on /admin, logs out and logs in again', async () => {
    const page = await openPage();
    await page.goto(`${baseUrl}/auth`);
    expect(await page.title()).to.equal(`Première configuration — ${APP_NAME}`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'first-run.png'), fullPage: true });

    await page.getByLabel('Nom').fill('Ada Lovelace');
    await page.getByLabel('Courriel').fill('ada@example.com');
    const password = page.getByLabel('Mot de passe');
    expect(await page.locator('[data-password-rules]').isVisible()).to.equal(true);
    await password.fill(PASSWORD);
    // The strength indicator takes over from the rules once typing starts.
    expect(await page.locator('[data-password-rules]').isVisible()).to.equal(false);
    expect(await page.locator('[data-password-strength]').isVisible()).to.equal(true);
    expect(await page.locator('.strength-label').textContent()).to.match(/^Robustesse\u00a0: /);
    await page.waitForTimeout(HUMAN_PAUSE_MS);
    await page.getByRole('button', { name: 'Créer le compte administrateur' }).click();
    await page.waitForURL(`${baseUrl}/admin`);
    expect(await page.title()).to.equal(`Administration — ${APP_NAME}`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'admin.png'), fullPage: true });

    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await page.waitForURL(`${baseUrl}/auth/login?done=logout`);
    expect(await page.title()).to.equal(`Connexion — ${APP_NAME}`);
    expect(await page.getByRole('status').textContent()).to.include('La session est fermée.');

    await page.getByLabel('Courriel').fill('ada@example.com');
    await page.getByLabel('Mot de passe', { exact: true }).fill('wrong password');
    await page.waitForTimeout(HUMAN_PAUSE_MS);
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('alert').textContent()).to.include('Courriel ou mot de passe incorrect.');
    expect(await page.getByLabel('Courriel').inputValue()).to.equal('ada@example.com');
    await page.screenshot({ path: path.join(ARTIFACTS, 'login-error.png'), fullPage: true });

    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.waitForTimeout(HUMAN_PAUSE_MS);
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
    await page.waitForURL(`${baseUrl}/admin`);
    await page.close();
  });

  it('submits a form from a page whose URL carries a token (no Referer sent there)', async () => {
    const issued = await requestPasswordReset(ctx, 'ada@example.com');
    const page = await openPage();
    await page.goto(`${baseUrl}/auth/reset?email=ada%40example.com&token=${encodeURIComponent(issued!.token)}`);
    expect(await page.getByLabel('Courriel').inputValue()).to.equal('ada@example.com');
    await page.locator('#f-newPassword').fill('another good secret');
    await page.waitForTimeout(HUMAN_PAUSE_MS);
    await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
    await page.waitForURL(`${baseUrl}/auth/login?done=reset`);
    expect(await page.getByRole('status').textContent()).to.include('Le mot de passe est modifié.');
    await page.close();
  });

  it('titles every auth page as in SPEC A2, at desktop width and at 320 px', async () => {
    const pages: Array<[string, string, string]> = [
      ['login', '/auth/login', 'Connexion'],
      ['unknown-segment', '/auth/whatever', 'Connexion'],
      ['register', '/auth/register', 'Créer un compte'],
      ['forgot', '/auth/forgot', 'Mot de passe oublié'],
      ['reset', '/auth/reset?email=ada%40example.com&token=expired', 'Nouveau mot de passe'],
      ['confirm', '/auth/confirm', 'Vérification du courriel'],
      ['setup', '/auth/setup', 'Activer le compte'],
      ['logout', '/auth/logout', 'Déconnexion'],
    ];
    for (const width of [1024, 320]) {
      const page = await openPage(width);
      for (const [name, url, title] of pages) {
        await page.goto(baseUrl + url);
        expect(await page.title(), url).to.equal(`${title} — ${APP_NAME}`);
        expect(await page.locator('h1').textContent(), url).to.equal(title);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${url} at ${width} px`).to.be.at.most(0);
        await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
      }
      await page.close();
    }
    expect(cspViolations).to.deep.equal([]);
  });
});
