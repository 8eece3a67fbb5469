// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The administration in a real browser (Debian chromium driven by playwright-core),
// with JavaScript enabled and disabled: an administrator invites a user who sets a
// password from the email link and logs in; an editor holding only admin.access,
// pages.view and pages.manage builds a three-level tree with an image block, sees it
// on the public site, and never sees the users section. Every admin screen is saved
// as a screenshot in test-artifacts/admin/ (desktop and 320 px, no horizontal scroll).
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { expect } from 'chai';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { projectRoot } from '../../lib/paths.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { makeRole, makeUser } from '../support/fixtures.js';

const ARTIFACTS = path.join(projectRoot, 'test-artifacts', 'admin');
const APP_NAME = 'Atelier';
const PASSWORD = 'correct horse battery';
// The anti-bot check of the /auth forms refuses a submission under 1.5 s after rendering.
const HUMAN_PAUSE_MS = 1600;

// A small real PNG (a two-colour gradient), so that thumbnails show something.
function samplePng(width = 160, height = 100): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buffer: Buffer) => {
    let c = 0xffffffff;
    for (const byte of buffer) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) row.set([36 + Math.round((x / width) * 180), 86, 211 - Math.round((y / height) * 120)], 1 + x * 3);
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('administration in a browser', function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: Server;
  let smtp: TestSmtpServer;
  let baseUrl: string;
  let app: App | undefined;
  let ctx: AppContext;
  const cspViolations: string[] = [];

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    mkdirSync(ARTIFACTS, { recursive: true });
    smtp = await startSmtpServer();
    app = createTestApp({ APP_NAME, SMTP_URL: smtp.url });
    ctx = contextOf(app);
    ({ server, baseUrl } = await listenOnFreePort(app));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    // The app's mail connection closes before the SMTP server it talks to.
    if (app) await closeTestApp(app);
    await smtp?.close();
  });

  beforeEach(async () => {
    await resetData(ctx);
    smtp?.clear();
  });

  // A failing step leaves a picture of where it stood.
  let lastPage: Page | undefined;
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && lastPage && !lastPage.isClosed()) {
      await lastPage.screenshot({ path: path.join(ARTIFACTS, 'failure.png'), fullPage: true }).catch(() => undefined);
    }
  });

  async function openContext(javaScriptEnabled: boolean, width = 1100): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    lastPage = page;
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
    return { context, page };
  }

  async function logInThroughForm(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${baseUrl}/auth/login`);
    await page.getByLabel('Courriel').fill(email);
    await page.getByLabel('Mot de passe', { exact: true }).fill(password);
    await page.waitForTimeout(HUMAN_PAUSE_MS);
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
    await page.waitForLoadState();
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  }

  async function flashText(page: Page): Promise<string> {
    return (await page.locator('.admin-main > .alert').first().textContent())?.trim() ?? '';
  }

  for (const javaScriptEnabled of [true, false]) {
    const mode = javaScriptEnabled ? 'js' : 'nojs';

    describe(`with JavaScript ${javaScriptEnabled ? 'enabled' : 'disabled'}`, () => {
      it('lets an administrator invite a user, who sets a password from the email link and logs in', async () => {
        await makeUser(ctx, { role: 'admin', email: 'ada@example.com', name: 'Ada Lovelace', password: PASSWORD });
        const { context, page } = await openContext(javaScriptEnabled);
        await logInThroughForm(page, 'ada@example.com', PASSWORD);
        expect(page.url()).to.equal(`${baseUrl}/admin`);
        expect(await page.title()).to.equal(`Administration — ${APP_NAME}`);
        await shot(page, `${mode}-dashboard`);

        await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Utilisateurs' }).click();
        expect(await page.title()).to.equal(`Utilisateurs — ${APP_NAME}`);
        await page.getByRole('link', { name: 'Inviter un utilisateur' }).click();
        expect(await page.title()).to.equal(`Inviter un utilisateur — ${APP_NAME}`);
        // A refused form first: the message sits by its field and the input stays.
        await page.getByLabel('Nom').fill('Grace Hopper');
        await page.getByLabel('Courriel').fill('grace@');
        await page.getByRole('button', { name: 'Inviter', exact: true }).click();
        await page.waitForLoadState();
        expect(await page.locator('#invite-email-error').textContent()).to.include('Courriel');
        expect(await page.getByLabel('Nom').inputValue()).to.equal('Grace Hopper');
        await shot(page, `${mode}-user-invite-error`);

        await page.getByLabel('Courriel').fill('grace@example.com');
        await page.getByRole('button', { name: 'Inviter', exact: true }).click();
        await page.waitForURL(/\/admin\/users\/\d+$/);
        expect(await flashText(page)).to.equal('Le compte est créé. Une invitation est envoyée à grace@example.com.');
        expect(await page.getByRole('button', { name: 'Marquer le courriel comme vérifié' }).isVisible()).to.equal(true);
        await shot(page, `${mode}-user-detail`);
        await page.getByRole('button', { name: 'Se déconnecter' }).click();
        await page.waitForURL(`${baseUrl}/auth/login?done=logout`);

        const mail = await smtp.waitForMessage('grace@example.com');
        const link = smtp.linkIn(mail, '/auth/setup');
        await page.goto(`${baseUrl}${link.pathname}${link.search}`);
        expect(await page.getByLabel('Courriel').inputValue()).to.equal('grace@example.com');
        await page.getByLabel('Mot de passe', { exact: true }).fill('grace chooses this');
        await page.getByLabel('Confirmation du mot de passe').fill('grace chooses this');
        await page.waitForTimeout(HUMAN_PAUSE_MS);
        await page.getByRole('button', { name: 'Activer le compte' }).click();
        // Activation signs her in: her profile, without the login form.
        await page.waitForURL(`${baseUrl}/account`);
        expect(await flashText(page)).to.equal('Le compte est activé.');
        expect(await page.title()).to.equal(`Mon profil — ${APP_NAME}`);
        expect(await page.locator('.admin-user-name').textContent()).to.equal('Grace Hopper');
        expect(await page.getByRole('link', { name: 'Utilisateurs' }).count()).to.equal(0);
        expect(await ctx.db('app_auth_users').where({ email: 'grace@example.com' }).first()).to.include({ email_verified: true });
        await shot(page, `${mode}-profile-invited-user`);
        await context.close();
      });

      it('lets an editor build a three-level page tree with an image block, seen on the public site, without the users section', async () => {
        const roleId = await makeRole(ctx, ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'], 'redaction');
        const editor = await makeUser(ctx, { email: 'ed@example.com', name: 'Ed Itor', password: PASSWORD });
        await ctx.db('app_auth_users').where({ id: editor.id }).update({ role_id: roleId });
        const { context, page } = await openContext(javaScriptEnabled);
        await logInThroughForm(page, 'ed@example.com', PASSWORD);
        expect(page.url()).to.equal(`${baseUrl}/admin`);
        const nav = page.getByRole('navigation', { name: 'Administration' });
        expect(await nav.getByRole('link').allTextContents()).to.deep.equal(['Tableau de bord', 'Pages', 'Médiathèque', 'Redirections', 'Mon profil']);
        const forbidden = await page.goto(`${baseUrl}/admin/users`);
        expect(forbidden?.status()).to.equal(403);

        // The image, through the media library.
        await page.goto(`${baseUrl}/admin/media`);
        await page.getByLabel('Image (PNG, JPEG ou WebP, 10 Mo au plus)').setInputFiles({ name: 'degrade.png', mimeType: 'image/png', buffer: samplePng() });
        await page.getByLabel('Texte alternatif').fill('Un dégradé bleu');
        await page.getByLabel('Légende').fill('Dégradé de test');
        await page.getByRole('button', { name: 'Envoyer l’image' }).click();
        await page.waitForURL(/\/admin\/media\/\d+$/);
        expect(await flashText(page)).to.equal('L’image est ajoutée à la médiathèque.');

        // Three levels: Atelier > Ateliers d'été > Poterie.
        const titles = ['Nos ateliers', 'Ateliers d’été', 'Poterie'];
        await page.goto(`${baseUrl}/admin/pages`);
        await page.getByRole('link', { name: 'Nouvelle page' }).click();
        for (const [level, title] of titles.entries()) {
          await page.getByLabel('Titre', { exact: true }).fill(title);
          await page.getByRole('button', { name: 'Créer la page' }).click();
          await page.waitForURL(/\/admin\/pages\/\d+$/);
          expect(await flashText(page)).to.equal('La page est créée.');
          if (level < titles.length - 1) {
            // A new page stays off the site until «Publier»: each section goes online before its sub-page.
            await page.getByRole('button', { name: 'Publier' }).click();
            await page.waitForLoadState();
            expect(await flashText(page)).to.equal('La page est publiée.');
            await page.getByRole('link', { name: 'Ajouter une sous-page' }).click();
          }
        }
        // The image block, on the deepest page.
        const deepest = /\/admin\/pages\/(\d+)$/.exec(page.url())![1];
        await page.getByLabel('Type du nouveau bloc').selectOption('image');
        await page.getByRole('button', { name: 'Ajouter le bloc' }).click();
        await page.waitForLoadState();
        // The library's pictures: in a dialog with JavaScript, in a folded list without.
        const imageBlock = page.locator('ol.blocks > li.block-card').nth(0);
        if (javaScriptEnabled) {
          await imageBlock.getByRole('button', { name: 'Choisir dans la médiathèque…' }).click();
          await page
            .getByRole('dialog', { name: 'Choisir dans la médiathèque' })
            .getByRole('button', { name: /Un dégradé bleu/ })
            .click();
        } else {
          await imageBlock.locator('details.media-picker > summary').click();
          await page.getByRole('radio', { name: /Un dégradé bleu/ }).check();
        }
        // The block's own text alternative, required unless the picture is decorative.
        await imageBlock.getByLabel('Texte alternatif').fill('Un dégradé bleu');
        await page.getByLabel('Type du nouveau bloc').selectOption('paragraph');
        await page.getByRole('button', { name: 'Ajouter le bloc' }).click();
        await page.waitForLoadState();
        await page.locator('ol.blocks > li.block-card').nth(1).locator('textarea').fill('Tournage et modelage, pour tous les âges.');
        // One form: saving keeps both blocks (a draft until «Publier»).
        await page.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
        await page.waitForLoadState();
        expect(await flashText(page)).to.match(/^Le brouillon est enregistré/);
        await page.getByRole('button', { name: 'Monter le bloc 2' }).click();
        await page.waitForLoadState();
        expect(await page.locator('.block-message').textContent()).to.match(/^Le bloc est déplacé/);
        await page.getByRole('button', { name: 'Publier' }).click();
        await page.waitForLoadState();
        expect(await flashText(page)).to.equal('La page est publiée.');
        await shot(page, `${mode}-page-edit`);

        // The tree shows one level at a time: opening the deepest page expands its path.
        await page.goto(`${baseUrl}/admin/pages?open=${deepest}`);
        expect(await page.locator('.tree-meta').allTextContents()).to.deep.equal([
          '/nos-ateliers',
          '/nos-ateliers/ateliers-d-ete',
          '/nos-ateliers/ateliers-d-ete/poterie',
        ]);
        await shot(page, `${mode}-pages-tree`);

        await page.goto(`${baseUrl}/nos-ateliers/ateliers-d-ete/poterie`);
        expect(await page.locator('h1').textContent()).to.equal('Poterie');
        const image = page.locator('figure.block-image img');
        expect(await image.getAttribute('alt')).to.equal('Un dégradé bleu');
        expect(await page.locator('figure.block-image figcaption').textContent()).to.equal('Dégradé de test');
        expect(await page.locator('article > *').evaluateAll((nodes) => nodes.map((node) => node.tagName))).to.deep.equal(['H1', 'P', 'FIGURE']);
        const loaded = await page.request.get(baseUrl + (await image.getAttribute('src')));
        expect(loaded.status()).to.equal(200);
        await shot(page, `${mode}-public-page`);
        await context.close();
      });
    });
  }

  it('shows every admin screen readably at desktop width and at 320 px (screenshots for a person to check)', async () => {
    await makeUser(ctx, { role: 'admin', email: 'ada@example.com', name: 'Ada Lovelace', password: PASSWORD });
    const other = await makeUser(ctx, { email: 'bob@example.com', name: 'Bob Martin', verified: false });
    const roleId = await makeRole(ctx, ['pages.view', 'pages.manage', 'pages.publish'], 'redaction');
    await ctx.db('app_auth_user_roles').insert({ user_id: other.id, role_id: roleId });
    const { context, page } = await openContext(true);
    await logInThroughForm(page, 'ada@example.com', PASSWORD);
    await page.goto(`${baseUrl}/admin/media`);
    await page.getByLabel('Image (PNG, JPEG ou WebP, 10 Mo au plus)').setInputFiles({ name: 'degrade.png', mimeType: 'image/png', buffer: samplePng() });
    await page.getByLabel('Texte alternatif').fill('Un dégradé');
    await page.getByRole('button', { name: 'Envoyer l’image' }).click();
    await page.waitForURL(/\/admin\/media\/\d+$/);
    const mediaPath = new URL(page.url()).pathname;
    await page.goto(`${baseUrl}/admin/pages/new`);
    await page.getByLabel('Titre', { exact: true }).fill('Accueil du site');
    await page.getByRole('button', { name: 'Créer la page' }).click();
    await page.waitForURL(/\/admin\/pages\/\d+$/);
    const pagePath = new URL(page.url()).pathname;
    await page.getByRole('link', { name: 'Ajouter une sous-page' }).click();
    await page.getByLabel('Titre', { exact: true }).fill('Sous-page');
    await page.getByRole('button', { name: 'Créer la page' }).click();
    await page.waitForURL(/\/admin\/pages\/\d+$/);
    for (const type of ['heading', 'paragraph', 'image', 'list', 'quote', 'link', 'children']) {
      await page.getByLabel('Type du nouveau bloc').selectOption(type);
      await page.getByRole('button', { name: 'Ajouter le bloc' }).click();
      await page.waitForLoadState();
    }
    await page.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
    await page.waitForLoadState();
    const childPath = new URL(page.url()).pathname;
    await context.close();

    const screens: Array<[string, string, string]> = [
      ['dashboard', '/admin', 'Administration'],
      ['users-list', '/admin/users', 'Utilisateurs'],
      ['users-new', '/admin/users/new', 'Inviter un utilisateur'],
      ['user-detail', `/admin/users/${other.id}`, 'Bob Martin'],
      ['roles-list', '/admin/roles', 'Rôles'],
      ['roles-new', '/admin/roles/new', 'Nouveau rôle'],
      ['role-edit', `/admin/roles/${roleId}`, 'Rôle redaction'],
      ['role-delete', `/admin/roles/${roleId}/delete`, 'Supprimer le rôle redaction'],
      ['audit-log', '/admin/audit', 'Journal'],
      ['sign-in', '/admin/sign-in', 'Moyens de connexion'],
      ['pages-tree', '/admin/pages', 'Pages'],
      ['page-new', '/admin/pages/new', 'Nouvelle page'],
      ['page-edit', pagePath, 'Page Accueil du site'],
      ['page-blocks', childPath, 'Page Sous-page'],
      ['page-delete', `${pagePath}/delete`, 'Supprimer la page Accueil du site'],
      ['media-list', '/admin/media', 'Médiathèque'],
      ['media-edit', mediaPath, 'Image degrade.png'],
      ['profile', '/admin/profile', 'Mon profil'],
      ['account', '/account', 'Mon profil'],
    ];
    for (const width of [1100, 320]) {
      const { context: sized, page: view } = await openContext(true, width);
      await logInThroughForm(view, 'ada@example.com', PASSWORD);
      for (const [name, url, title] of screens) {
        const response = await view.goto(baseUrl + url);
        expect(response?.status(), url).to.equal(200);
        expect(await view.title(), url).to.equal(`${title} — ${APP_NAME}`);
        const overflow = await view.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        // On failure, name the elements sticking out.
        const wide =
          overflow > 0
            ? await view.evaluate(() =>
                [...document.querySelectorAll('body *')]
                  .filter((node) => node.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
                  .slice(0, 5)
                  .map((node) => `${node.tagName}.${node.className}`),
              )
            : [];
        expect(overflow, `${url} at ${width} px: ${wide.join(', ')}`).to.be.at.most(0);
        await view.screenshot({ path: path.join(ARTIFACTS, `screen-${name}-${width}.png`), fullPage: true });
      }
      await sized.close();
    }
    expect(cspViolations).to.deep.equal([]);
  });
});
