// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The page editor in Chromium, with JavaScript on and off: the title and two blocks
// edited, then a block moved (the «Monter» button without JavaScript, dragging with it),
// every edit kept; two tabs on the same page: different blocks merge, the same paragraph
// (or title) gets the conflict screen listing only it, with what each typed and a
// choice; the draft invisible on the site until «Publier».
// With JavaScript, a block is also added in place and leaving with unsaved changes asks
// first. axe-core finds nothing on the editor and the conflict screen.
import type { Server } from 'node:http';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { getDraft, saveDraft } from '../../models/pages/drafts.js';
import { createPage, getPage } from '../../models/pages/pages.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';
import { caller } from '../support/fixtures.js';
import { axeViolations, checkScreen } from '../support/walk.js';
import { withoutIds } from './helpers.js';

describe('page editor in a browser (JavaScript on and off)', function () {
  this.timeout(120_000);
  let server: Server;
  let baseUrl: string;
  let browser: Browser;
  let ctx: AppContext;
  const contexts: BrowserContext[] = [];

  before(async function () {
    if (!chromiumAvailable()) return this.skip();
    const app = createTestApp({ APP_NAME: 'Éditeur' });
    ctx = contextOf(app);
    ({ server, baseUrl } = await listenOnFreePort(app));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (server) await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => resetData(ctx));
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  /** A browser context logged in as an editor (the session cookie of a stored session). */
  async function editorTab(javaScriptEnabled: boolean, cookie?: string): Promise<{ page: Page; cookie: string; cspErrors: string[] }> {
    const session = cookie ?? (await caller(ctx, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] })).cookie;
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const [name, ...value] = session.split('=');
    await context.addCookies([{ name, value: value.join('='), url: baseUrl }]);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const cspErrors: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspErrors.push(message.text());
    });
    return { page, cookie: session, cspErrors };
  }

  async function threeBlocks() {
    return createPage(ctx, {
      title: 'Atelier',
      blocks: [
        { type: 'paragraph', text: 'Premier' },
        { type: 'paragraph', text: 'Deuxième' },
        { type: 'paragraph', text: 'Troisième' },
      ],
    });
  }

  for (const javaScriptEnabled of [false, true]) {
    const mode = javaScriptEnabled ? 'JavaScript on' : 'JavaScript off';

    it(`${mode}: edits the title and two blocks, then moves a block: every edit kept, the site unchanged until «Publier»`, async () => {
      const page = await threeBlocks();
      const { page: tab, cspErrors } = await editorTab(javaScriptEnabled);
      await tab.goto(`${baseUrl}/admin/pages/${page.id}`);
      await tab.getByLabel('Titre', { exact: true }).fill('Atelier de poterie');
      await tab.locator('#b-0-text').fill('Premier revu');
      await tab.locator('#b-2-text').fill('Troisième revu');
      if (javaScriptEnabled) {
        // Dragging the third block above the first, then saving.
        await tab.setViewportSize({ width: 1280, height: 2000 });
        // Card 0 at the top of a tall window: both ends of the drag are on screen.
        await tab.locator('li.block-card[data-key="0"]').evaluate((card) => card.scrollIntoView({ block: 'start' }));
        const handle = (await tab.locator('li.block-card[data-key="2"] .block-handle').boundingBox())!;
        await tab.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
        await tab.mouse.down();
        const target = (await tab.locator('li.block-card[data-key="0"] h3').boundingBox())!;
        await tab.mouse.move(target.x + 20, target.y + 4, { steps: 10 });
        await tab.mouse.up();
        expect(await tab.locator('ol.blocks > li.block-card').evaluateAll((items) => items.map((item) => item.getAttribute('data-key')))).to.deep.equal([
          '2',
          '0',
          '1',
        ]);
        await tab.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
      } else {
        await tab.getByRole('button', { name: 'Monter le bloc 3' }).click();
      }
      await tab.waitForLoadState();
      const draft = await getDraft(ctx, page.id);
      expect(draft.title).to.equal('Atelier de poterie');
      const expected = javaScriptEnabled ? ['Troisième revu', 'Premier revu', 'Deuxième'] : ['Premier revu', 'Troisième revu', 'Deuxième'];
      expect(draft.blocks.map((block) => block.text)).to.deep.equal(expected);
      expect(await tab.locator('textarea[name$=".text"]').evaluateAll((fields) => fields.map((field) => (field as HTMLTextAreaElement).value))).to.deep.equal(
        expected,
      );
      if (!javaScriptEnabled) {
        // The message sits at the moved block, which has the focus.
        expect(await tab.locator('#block-1 .block-message').textContent()).to.match(/^Le bloc est déplacé/);
        expect(await tab.evaluate(() => document.activeElement?.classList.contains('block-message'))).to.equal(true);
      }

      // The draft is not on the site; «Publier» puts it there.
      const site = await tab.context().newPage();
      await site.goto(`${baseUrl}/atelier`);
      expect(await site.locator('h1').textContent()).to.equal('Atelier');
      expect(await site.content()).to.not.include('revu');
      await tab.getByRole('button', { name: 'Publier' }).click();
      await tab.waitForLoadState();
      expect((await getPage(ctx, page.id)).title).to.equal('Atelier de poterie');
      await site.reload();
      expect(await site.locator('h1').textContent()).to.equal('Atelier de poterie');
      expect(await site.content()).to.include('Premier revu');
      expect(await axeViolations(tab, javaScriptEnabled ? undefined : (await editorTab(true)).page)).to.deep.equal([]);
      expect(cspErrors).to.deep.equal([]);
    });

    it(`${mode}: two tabs on one page change the title: the second save shows the conflict screen with its content intact`, async () => {
      const page = await threeBlocks();
      const first = await editorTab(javaScriptEnabled);
      const second = await editorTab(javaScriptEnabled, first.cookie);
      await first.page.goto(`${baseUrl}/admin/pages/${page.id}`);
      await second.page.goto(`${baseUrl}/admin/pages/${page.id}`);
      await first.page.getByLabel('Titre', { exact: true }).fill('Titre du premier onglet');
      await first.page.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
      await first.page.waitForLoadState();
      const saved = await getDraft(ctx, page.id);

      await second.page.getByLabel('Titre', { exact: true }).fill('Titre du second onglet');
      await second.page.locator('#b-1-text').fill('Texte du second onglet');
      await second.page.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
      await second.page.waitForLoadState();
      expect(await second.page.locator('.conflict-fields').textContent()).to.include('Titre du premier onglet');
      expect(await second.page.getByLabel('Titre', { exact: true }).inputValue()).to.equal('Titre du second onglet');
      expect(await second.page.locator('#b-1-text').inputValue()).to.equal('Texte du second onglet');
      expect(await getDraft(ctx, page.id)).to.deep.equal(saved);
      expect(await axeViolations(second.page, javaScriptEnabled ? undefined : (await editorTab(true)).page)).to.deep.equal([]);

      // Keeping the submitted content: saving again from the conflict screen.
      await second.page.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
      await second.page.waitForLoadState();
      const kept = await getDraft(ctx, page.id);
      expect(kept.title).to.equal('Titre du second onglet');
      expect(withoutIds(kept.blocks[1])).to.deep.equal({ type: 'paragraph', text: 'Texte du second onglet' });
    });

    it(`${mode}: two tabs edit different blocks and both save: both edits are in the draft, no conflict screen`, async () => {
      const page = await threeBlocks();
      const first = await editorTab(javaScriptEnabled);
      const second = await editorTab(javaScriptEnabled, first.cookie);
      await first.page.goto(`${baseUrl}/admin/pages/${page.id}`);
      await second.page.goto(`${baseUrl}/admin/pages/${page.id}`);
      await first.page.locator('#b-0-text').fill('Premier du premier onglet');
      await first.page.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
      await first.page.waitForLoadState();
      await second.page.locator('#b-2-text').fill('Troisième du second onglet');
      await second.page.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
      await second.page.waitForLoadState();
      expect(await second.page.locator('.conflict-fields, .conflict-current').count()).to.equal(0);
      expect(await second.page.locator('.admin-main > .alert').first().textContent()).to.match(/^Fusionné avec les modifications de /);
      expect(withoutIds((await getDraft(ctx, page.id)).blocks).map((block) => block.text)).to.deep.equal([
        'Premier du premier onglet',
        'Deuxième',
        'Troisième du second onglet',
      ]);
    });

    it(`${mode}: two tabs edit the same paragraph: the conflict screen lists that paragraph only, with what each typed`, async () => {
      const page = await threeBlocks();
      const first = await editorTab(javaScriptEnabled);
      const second = await editorTab(javaScriptEnabled, first.cookie);
      await first.page.goto(`${baseUrl}/admin/pages/${page.id}`);
      await second.page.goto(`${baseUrl}/admin/pages/${page.id}`);
      await first.page.locator('#b-1-text').fill('Deuxième selon le premier onglet');
      await first.page.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
      await first.page.waitForLoadState();
      const saved = await getDraft(ctx, page.id);
      await second.page.locator('#b-1-text').fill('Deuxième selon le second onglet');
      await second.page.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
      await second.page.waitForLoadState();
      const clashes = second.page.locator('.conflict-field');
      expect(await clashes.count()).to.equal(1);
      expect(await clashes.locator('legend').textContent()).to.equal('Bloc 2\u00a0: Texte');
      const listed = await clashes.textContent();
      expect(listed).to.include('Deuxième selon le premier onglet').and.include('Deuxième selon le second onglet');
      expect(await second.page.locator('#b-1-text').inputValue()).to.equal('Deuxième selon le second onglet');
      expect(await getDraft(ctx, page.id)).to.deep.equal(saved);
      expect(await axeViolations(second.page, javaScriptEnabled ? undefined : (await editorTab(true)).page)).to.deep.equal([]);
      // Taking the other version, then saving.
      await second.page.getByLabel(/Prendre l’autre version/).check();
      await second.page.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
      await second.page.waitForLoadState();
      expect(withoutIds((await getDraft(ctx, page.id)).blocks)[1]).to.deep.equal({ type: 'paragraph', text: 'Deuxième selon le premier onglet' });
    });
  }

  it('shows the history and the comparison of two revisions with nothing for axe-core nor the typography check to find', async () => {
    const page = await threeBlocks();
    await saveDraft(ctx, page.id, { title: 'Atelier revu', blocks: [{ type: 'paragraph', text: 'Autre texte' }] });
    const { page: tab } = await editorTab(true);
    for (const path of [`/admin/pages/${page.id}/revisions`, `/admin/pages/${page.id}/revisions/compare?a=1&b=2`, '/admin/pages']) {
      const response = await tab.goto(baseUrl + path);
      expect(response?.status(), path).to.equal(200);
      expect(await checkScreen(tab, path)).to.deep.equal([]);
    }
  });

  it('JavaScript on: adds a block in place without a reload, and asks before leaving with unsaved changes', async () => {
    const page = await threeBlocks();
    const { page: tab } = await editorTab(true);
    await tab.goto(`${baseUrl}/admin/pages/${page.id}`);
    const loads: string[] = [];
    tab.on('load', () => loads.push(tab.url()));
    await tab.getByLabel('Type du nouveau bloc').selectOption('quote');
    await tab.getByRole('button', { name: 'Ajouter le bloc' }).click();
    expect(await tab.locator('ol.blocks > li.block-card').count()).to.equal(4);
    expect(loads).to.deep.equal([]);
    await tab.locator('ol.blocks > li.block-card').nth(3).locator('textarea').fill('Une citation ajoutée sans rechargement');

    let asked = false;
    tab.once('dialog', (dialog) => {
      asked = dialog.type() === 'beforeunload';
      void dialog.dismiss();
    });
    await tab.goto(`${baseUrl}/admin/pages`).catch(() => undefined);
    expect(asked).to.equal(true);
    expect(new URL(tab.url()).pathname).to.equal(`/admin/pages/${page.id}`);

    await tab.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
    await tab.waitForLoadState();
    expect(withoutIds((await getDraft(ctx, page.id)).blocks[3])).to.deep.equal({ type: 'quote', text: 'Une citation ajoutée sans rechargement', cite: '' });
  });

  it('JavaScript on: blocks added in place name their own position to screen readers, and the blocks after them move up a number', async () => {
    const page = await threeBlocks();
    const { page: tab } = await editorTab(true);
    await tab.goto(`${baseUrl}/admin/pages/${page.id}`);
    const cards = tab.locator('ol.blocks > li.block-card');
    // «Insérer ici» after the first block, then «Ajouter le bloc» at the end: five blocks.
    await cards.nth(0).getByText('Insérer ici').click();
    await cards.nth(0).getByRole('button', { name: 'Citation après le bloc 1' }).click();
    await tab.getByLabel('Type du nouveau bloc').selectOption('quote');
    await tab.getByRole('button', { name: 'Ajouter le bloc' }).click();
    expect(await cards.count()).to.equal(5);
    for (let index = 0; index < 5; index++) {
      const position = index + 1;
      const card = cards.nth(index);
      // What a screen reader announces for each tool of the block, read from the accessibility tree.
      const names = await card
        .locator('.block-tools button, .block-tools summary, .insert-slot summary')
        .evaluateAll((elements) => elements.map((element) => (element.textContent ?? '').replace(/\s+/g, ' ').trim()));
      expect(names.length, `block ${position}`).to.be.greaterThan(0);
      for (const name of names) expect(name, `block ${position}`).to.match(new RegExp(`(le|du) bloc ${position}$`));
      expect(await card.locator('h3 .block-number').textContent()).to.equal(String(position));
    }
  });
});
