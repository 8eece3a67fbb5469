// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The users, roles, profile and media screens in Chromium at 375 and 1280 px: nothing
// wider than the window (the users list reads as cards on a phone), and axe-core finds
// no violation. Screenshots go to test-artifacts/design/ for a person to look at.
import { mkdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { projectRoot } from '../../lib/paths.js';
import { recordAudit } from '../../models/audit.js';
import { insertMedia } from '../../models/pages/media.js';
import { createPage } from '../../models/pages/pages.js';
import { saveMenu } from '../../models/pages/menus.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';
import { caller, makeRole, makeUser, PNG_1X1 } from '../support/fixtures.js';

const ARTIFACTS = path.join(projectRoot, 'test-artifacts', 'design');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
}

describe('users, roles, profile and media screens in a browser', function () {
  this.timeout(180_000);
  let browser: Browser;
  let server: Server;
  let baseUrl: string;
  let app: App | undefined;
  let ctx: AppContext;

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    mkdirSync(ARTIFACTS, { recursive: true });
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

  it('fits every screen in 375 and 1280 px (the users list as cards) with no axe-core violation', async () => {
    const admin = await caller(ctx, { role: 'admin', name: 'Ada Lovelace', email: 'ada.lovelace@example.com' });
    const editorRole = await makeRole(ctx, ['pages.view', 'pages.manage', 'pages.publish'], 'redaction');
    await ctx.db('app_auth_roles').where({ id: editorRole }).update({ label: 'Rédaction', description: 'Écrit et publie les pages' });
    const long = await makeUser(ctx, {
      name: 'Maximilienne de La Tour-d’Auvergne',
      email: 'maximilienne.de.la.tour.dauvergne@un-domaine-assez-long.example.com',
    });
    await ctx.db('app_auth_user_roles').insert({ user_id: long.id, role_id: editorRole });
    await makeUser(ctx, { name: 'Ines Invitée', password: null, verified: false });
    const away = await makeUser(ctx, { name: 'Sam Suspendu' });
    await ctx.db('app_auth_users').where({ id: away.id }).update({ suspended_at: ctx.clock.now(), suspended_reason: 'Départ' });
    await recordAudit(ctx, {
      actor: { id: long.id, name: long.name },
      ip: null,
      action: 'auth.login',
      target: { type: 'user', id: long.id, label: long.name },
    });
    await ctx.uploads.put('media/' + 'a'.repeat(32) + '.png', PNG_1X1, 'image/png');
    const media = await insertMedia(
      ctx,
      { filename: 'media/' + 'a'.repeat(32) + '.png', original_name: 'phare.png', mime_type: 'image/png', size: 41_677, alt: 'Un phare' },
      null,
    );
    const bretagne = await createPage(ctx, { title: 'Bretagne', blocks: [{ type: 'image', media_id: media.id }] });
    const hidden = await createPage(ctx, { title: 'Brouillon', visibility: 'private' });
    await saveMenu(ctx, 'header', [
      { label: null, page_id: bretagne.id, url: null, children: [{ label: 'Contact', page_id: null, url: 'mailto:contact@example.org', children: [] }] },
      { label: null, page_id: hidden.id, url: null, children: [] },
    ]);

    const screens = [
      '/admin/users',
      `/admin/users/${long.id}`,
      `/admin/users/${away.id}`,
      '/admin/users/new',
      '/admin/roles',
      `/admin/roles/${editorRole}`,
      '/admin/roles/new',
      '/admin/profile',
      '/account',
      '/admin/media',
      `/admin/media/${media.id}`,
      '/admin/menus',
    ];
    const [name, value] = admin.cookie.split('=');
    const problems: string[] = [];
    for (const width of [375, 1280]) {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      await context.addCookies([{ name, value, url: baseUrl }]);
      const page = await context.newPage();
      for (const screen of screens) {
        const response = await page.goto(baseUrl + screen);
        expect(response?.status(), screen).to.equal(200);
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        if (scrollWidth > width) problems.push(`${screen} at ${width} px is ${scrollWidth} px wide`);
        // Run through the DevTools protocol, so the page's Content-Security-Policy does not apply to it.
        await page.evaluate(AXE_SOURCE);
        const result = (await page.evaluate(() => (window as unknown as { axe: { run: () => Promise<unknown> } }).axe.run())) as AxeResult;
        for (const violation of result.violations) {
          problems.push(`${screen} at ${width} px: ${violation.id} (${violation.impact}) ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
        }
        await page.screenshot({ path: path.join(ARTIFACTS, `${screen.replace(/\W+/g, '-').replace(/^-/, '')}-${width}.png`), fullPage: true });
      }
      if (width === 375) {
        // The list reads as cards: its header row is out of sight, each cell names its column.
        await page.goto(`${baseUrl}/admin/users`);
        expect(await page.locator('table.list thead').evaluate((node) => node.getBoundingClientRect().width)).to.be.at.most(1);
        const label = await page
          .locator('td[data-label="État"]')
          .first()
          .evaluate((node) => getComputedStyle(node, '::before').content);
        expect(label).to.equal('"État"');
      }
      await context.close();
    }
    expect(problems).to.deep.equal([]);
  });

  it('fits the /auth card and the error pages in 375 and 1280 px with no axe-core violation', async () => {
    await makeUser(ctx, { role: 'admin' });
    const plain = await caller(ctx, { name: 'Paul' });
    const [name, value] = plain.cookie.split('=');
    const problems: string[] = [];
    for (const width of [375, 1280]) {
      for (const [screens, loggedIn] of [
        [
          [
            ['/auth/login', 200],
            ['/auth/forgot', 200],
          ],
          false,
        ],
        [
          [
            ['/admin/users', 403],
            ['/account/nowhere', 404],
          ],
          true,
        ],
      ] as const) {
        const context = await browser.newContext({ viewport: { width, height: 800 } });
        if (loggedIn) await context.addCookies([{ name, value, url: baseUrl }]);
        const page = await context.newPage();
        for (const [screen, status] of screens) {
          const response = await page.goto(baseUrl + screen);
          expect(response?.status(), screen).to.equal(status);
          const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          if (scrollWidth > width) problems.push(`${screen} at ${width} px is ${scrollWidth} px wide`);
          await page.evaluate(AXE_SOURCE);
          const result = (await page.evaluate(() => (window as unknown as { axe: { run: () => Promise<unknown> } }).axe.run())) as AxeResult;
          for (const violation of result.violations) {
            problems.push(`${screen} at ${width} px: ${violation.id} (${violation.impact}) ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
          }
          await page.screenshot({ path: path.join(ARTIFACTS, `card-${screen.replace(/\W+/g, '-').replace(/^-/, '')}-${width}.png`), fullPage: true });
        }
        await context.close();
      }
    }
    expect(problems).to.deep.equal([]);
  });
});
