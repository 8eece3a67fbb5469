// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The search in Chromium at 375 and 1280 px, light and dark: the header's form on a page
// of the site leads to /recherche, whose results, refusal and empty answer fit the window
// and have no axe-core violation (the form labelled, role=search, the marks readable).
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { createPage } from '../../models/pages/pages.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
}

describe('the site search in a browser', function () {
  this.timeout(180_000);
  let browser: Browser;
  let server: Server;
  let baseUrl: string;
  let app: App | undefined;
  let ctx: AppContext;

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    app = createTestApp({ APP_NAME: 'Atelier' });
    ctx = contextOf(app);
    ({ server, baseUrl } = await listenOnFreePort(app));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (app) await closeTestApp(app);
  });
  beforeEach(() => resetData(ctx));

  it('searches from the header of a page, and every search page fits and passes axe-core', async () => {
    await createPage(ctx, { title: 'Accueil', slug: 'accueil', blocks: [{ type: 'paragraph', text: 'Bienvenue à l’atelier.' }] });
    for (let n = 1; n <= 12; n++) {
      await createPage(ctx, {
        title: `Atelier de céramique n° ${n}`,
        slug: `atelier-${n}`,
        blocks: [{ type: 'paragraph', text: `Les ateliers du samedi, pour apprendre le tour et l’émaillage, séance ${n}.` }],
      });
    }
    const problems: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [375, 1280]) {
        const context = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: scheme });
        const page = await context.newPage();
        await page.goto(`${baseUrl}/`);
        await page.getByLabel('Rechercher sur le site').fill('samedi');
        await Promise.all([page.waitForURL(/\/recherche\?q=/), page.getByRole('search').getByRole('button', { name: 'Rechercher' }).click()]);
        expect(await page.locator('.search-results li').count()).to.equal(10);
        expect(await page.locator('.search-results mark').first().textContent()).to.equal('samedi');
        for (const path of ['/recherche?q=c%C3%A9ramique', '/recherche?q=c%C3%A9ramique&page=2', '/recherche?q=a', '/recherche?q=introuvable', '/recherche']) {
          const response = await page.goto(baseUrl + path);
          expect(response?.status(), path).to.equal(path.endsWith('q=a') ? 400 : 200);
          const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          if (scrollWidth > width) problems.push(`${path} at ${width} px (${scheme}) is ${scrollWidth} px wide`);
          await page.evaluate(AXE_SOURCE);
          const result = (await page.evaluate(() => (window as unknown as { axe: { run: () => Promise<unknown> } }).axe.run())) as AxeResult;
          for (const violation of result.violations) {
            problems.push(
              `${path} at ${width} px (${scheme}): ${violation.id} (${violation.impact}) ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
            );
          }
        }
        await context.close();
      }
    }
    expect(problems).to.deep.equal([]);
  });
});
