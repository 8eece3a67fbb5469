// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// Writing help in Chromium (issue 23, item 4): the paragraph's toolbar and its shortcuts
// (Ctrl+B, Ctrl+I, Ctrl+K), Alt+↑/↓ moving the focused block, the live preview beside
// the form (the site's rendering of the unsaved form, within 1 s after typing stops,
// nothing saved), and «Aperçu» opening the signed preview in a new tab with a way back
// to the editor — with JavaScript and without. Also: the draft saved when the page is
// left (autosave), and the address's prefix never cut inside «localhost:3000».
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { getDraft } from '../../models/pages/drafts.js';
import { createPage } from '../../models/pages/pages.js';
import { submitWith, useBrowserSite } from '../support/browser.js';
import { caller } from '../support/fixtures.js';
import { axeViolations } from '../support/walk.js';

describe('writing help in the editor, in a browser', function () {
  this.timeout(120_000);
  const site = useBrowserSite();

  async function editorTab(javaScriptEnabled: boolean): Promise<Page> {
    const { cookie } = await caller(site.ctx, { name: 'Claire Martin', permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
    const tab = await site.open({ javaScriptEnabled, cookie, timeoutMs: 15_000 });
    const cspErrors: string[] = [];
    tab.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspErrors.push(message.text());
    });
    (tab as Page & { cspErrors: string[] }).cspErrors = cspErrors;
    return tab;
  }
  const cspErrorsOf = (tab: Page) => (tab as Page & { cspErrors: string[] }).cspErrors;

  const threeBlocks = () =>
    createPage(site.ctx, {
      title: 'Atelier',
      slug: 'atelier',
      blocks: [
        { type: 'heading', text: 'Nos ateliers', level: 2 },
        { type: 'paragraph', text: 'Tournage le samedi.' },
        { type: 'paragraph', text: 'Modelage le dimanche.' },
      ],
    });

  it('the toolbar and Ctrl+B, Ctrl+I, Ctrl+K write the paragraph’s Markdown; «Liste» puts a dash before each line', async () => {
    const page = await threeBlocks();
    const tab = await editorTab(true);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    const text = tab.locator('#b-1-text');
    const toolbar = tab.getByRole('toolbar', { name: 'Mise en forme du paragraphe' }).first();
    expect(await tab.getByRole('toolbar').count()).to.equal(2); // the two paragraphs, not the heading
    // Bold by the button, around the selected word.
    await text.evaluate((area: HTMLTextAreaElement) => area.setSelectionRange(0, 8));
    await toolbar.getByRole('button', { name: 'Gras' }).click();
    expect(await text.inputValue()).to.equal('**Tournage** le samedi.');
    // Italic by the shortcut.
    await text.evaluate((area: HTMLTextAreaElement) => {
      area.focus();
      area.setSelectionRange(16, 22);
    });
    await tab.keyboard.press('Control+i');
    expect(await text.inputValue()).to.equal('**Tournage** le *samedi*.');
    // A link: the address is selected, ready to be typed over.
    await text.evaluate((area: HTMLTextAreaElement) => {
      area.focus();
      area.setSelectionRange(13, 15);
    });
    await tab.keyboard.press('Control+k');
    await tab.keyboard.type('/horaires');
    expect(await text.inputValue()).to.equal('**Tournage** [le](/horaires) *samedi*.');
    // Without a selection: a placeholder, selected, to type over.
    await text.evaluate((area: HTMLTextAreaElement) => {
      area.focus();
      area.setSelectionRange(0, 0);
    });
    await tab.keyboard.press('Control+b');
    await tab.keyboard.type('Atelier');
    expect(await text.inputValue()).to.equal('**Atelier****Tournage** [le](/horaires) *samedi*.');
    // The list button: each line of the selection starts with a dash.
    const second = tab.locator('#b-2-text');
    await second.fill('Argile\nÉmail');
    await second.evaluate((area: HTMLTextAreaElement) => area.setSelectionRange(0, area.value.length));
    await tab.getByRole('toolbar').nth(1).getByRole('button', { name: 'Liste à puces' }).click();
    expect(await second.inputValue()).to.equal('- Argile\n- Émail');
    // The toolbar is one tab stop, its buttons reached with the arrows.
    await toolbar.getByRole('button', { name: 'Gras' }).focus();
    await tab.keyboard.press('ArrowRight');
    expect(await tab.evaluate('document.activeElement.getAttribute("aria-label")')).to.equal('Italique');
    expect(await axeViolations(tab)).to.deep.equal([]);
    expect(cspErrorsOf(tab)).to.deep.equal([]);
  });

  it('Alt+↑ and Alt+↓ move the focused block, the focus staying in its field; the new order is saved', async () => {
    const page = await threeBlocks();
    const tab = await editorTab(true);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    await tab.locator('#b-2-text').focus();
    await tab.keyboard.press('Alt+ArrowUp');
    await tab.keyboard.press('Alt+ArrowUp');
    expect(await tab.evaluate('document.activeElement.id')).to.equal('b-2-text');
    expect(await tab.locator('ol.blocks > li.block-card .block-number').allTextContents()).to.deep.equal(['1', '2', '3']);
    expect(await tab.locator('ol.blocks > li.block-card').first().getAttribute('data-key')).to.equal('2');
    expect(await tab.locator('.editor-status').textContent()).to.include('Bloc déplacé en position 1');
    await tab.keyboard.press('Alt+ArrowDown');
    await submitWith(tab, tab.getByRole('button', { name: 'Enregistrer le brouillon' }));
    expect((await getDraft(site.ctx, page.id)).blocks.map((block) => block.text)).to.deep.equal([
      'Nos ateliers',
      'Modelage le dimanche.',
      'Tournage le samedi.',
    ]);
  });

  it('the live preview shows the unsaved form as the site renders it, within 1 s after typing stops, and saves nothing', async () => {
    const page = await threeBlocks();
    const revisionsBefore = await site.ctx.db('app_page_revisions').where({ page_id: page.id }).count({ n: '*' }).first();
    const tab = await editorTab(true);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    await tab.getByRole('button', { name: 'Aperçu en direct' }).click();
    expect(await tab.getByRole('button', { name: 'Aperçu en direct' }).getAttribute('aria-pressed')).to.equal('true');
    const frame = tab.frameLocator('#live-preview iframe');
    await frame.locator('main h1').waitFor();
    expect(await frame.locator('main h1').textContent()).to.equal('Atelier');
    // Beside the blocks at 1280 px.
    const main = (await tab.locator('.editor-main').boundingBox())!;
    const preview = (await tab.locator('#live-preview').boundingBox())!;
    expect(preview.x).to.be.at.least(main.x + main.width);
    // Timed in the page, from the last keystroke's input to the frame's new content.
    await tab.evaluate(() => {
      const marks = { typed: 0, shown: 0 };
      (window as unknown as { marks: typeof marks }).marks = marks;
      document.getElementById('page-editor')!.addEventListener('input', () => (marks.typed = performance.now()));
      document.querySelector('#live-preview iframe')!.addEventListener('load', () => (marks.shown = performance.now()));
    });
    await tab.locator('#b-1-text').fill('Tournage le **samedi** matin.');
    await frame.locator('main strong', { hasText: 'samedi' }).waitFor();
    const marks = await tab.evaluate(() => (window as unknown as { marks: { typed: number; shown: number } }).marks);
    const waited = Math.round(marks.shown - marks.typed);
    console.log(`      live preview shown ${waited} ms after typing stopped`);
    expect(waited).to.be.below(1_000);
    // The site's own rendering: its stylesheet, its navigation, the Markdown.
    expect(await frame.locator('link[href="/assets/css/pages.css"]').count()).to.equal(1);
    expect(await tab.locator('#live-preview iframe').getAttribute('sandbox')).to.equal('allow-same-origin');
    // Nothing saved: the live page and the revisions are as they were.
    await tab.waitForTimeout(300);
    const revisionsAfter = await site.ctx.db('app_page_revisions').where({ page_id: page.id }).count({ n: '*' }).first();
    expect(revisionsAfter).to.deep.equal(revisionsBefore);
    expect(await axeViolations(tab)).to.deep.equal([]);
    expect(cspErrorsOf(tab)).to.deep.equal([]);
  });

  for (const javaScriptEnabled of [false, true]) {
    it(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}: «Aperçu» opens the draft’s preview in a new tab, «Aperçu du brouillon», with «Retour à l’édition»`, async () => {
      const page = await threeBlocks();
      const tab = await editorTab(javaScriptEnabled);
      await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
      await tab.locator('#b-1-text').fill('Tournage le samedi et le dimanche.');
      const opened = tab.context().waitForEvent('page');
      await tab.getByRole('button', { name: 'Aperçu (nouvel onglet)' }).click();
      const preview = await opened;
      await preview.waitForURL(/\/_apercu\//);
      await preview.waitForLoadState();
      // The editor stays in its tab.
      expect(tab.url()).to.equal(`${site.baseUrl}/admin/pages/${page.id}`);
      expect(await preview.locator('.preview-banner strong').textContent()).to.equal('Aperçu du brouillon');
      expect(await preview.locator('.preview-banner').textContent()).to.not.match(/révision/);
      expect(await preview.locator('main').textContent()).to.include('Tournage le samedi et le dimanche.');
      // No window.opener for the preview.
      if (javaScriptEnabled) expect(await preview.evaluate('window.opener === null')).to.equal(true);
      await preview.getByRole('link', { name: 'Retour à l’édition' }).click();
      await preview.waitForURL(`${site.baseUrl}/admin/pages/${page.id}`);
      expect(await preview.locator('#b-1-text').inputValue()).to.equal('Tournage le samedi et le dimanche.');
      if (javaScriptEnabled) {
        // The editor's tab stands on the revision saved: its autosave goes on.
        await tab.locator('#b-1-text').fill('Tournage tous les jours.');
        await tab.locator('.editor-status', { hasText: /^Brouillon enregistré à \d{1,2}\u00a0h\u00a0\d{2}$/ }).waitFor();
        expect((await getDraft(site.ctx, page.id)).blocks[1].text).to.equal('Tournage tous les jours.');
      }
    });
  }

  it('JavaScript on: what was typed is saved when the page is left before the autosave’s delay', async () => {
    const page = await threeBlocks();
    const tab = await editorTab(true);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    tab.on('dialog', (dialog) => void dialog.accept());
    await tab.locator('#b-1-text').fill('Tournage le samedi, tout l’été.');
    await tab.goto(`${site.baseUrl}/admin/pages`);
    let text = '';
    for (let tries = 0; tries < 50 && text !== 'Tournage le samedi, tout l’été.'; tries += 1) {
      await tab.waitForTimeout(100);
      text = String((await getDraft(site.ctx, page.id)).blocks[1].text);
    }
    expect(text).to.equal('Tournage le samedi, tout l’été.');
  });

  it('at 1280 px the address’s prefix is never cut inside «localhost:3000»', async () => {
    const page = await threeBlocks();
    const tab = await editorTab(true);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    const host = new URL(site.ctx.config.baseUrl).host;
    // The text node holding the host sits on one line (its fragments share one top).
    const hostLines = await tab.locator('#page-slug-prefix').evaluate((prefix: HTMLElement, name: string) => {
      const node = [...prefix.childNodes].find((child) => (child.textContent ?? '').includes(name))!;
      const range = document.createRange();
      range.selectNodeContents(node);
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
    }, host);
    const lines = await tab.locator('#page-slug-prefix').evaluate((prefix: HTMLElement) => prefix.getClientRects().length);
    expect(hostLines, `the prefix on ${lines} line(s)`).to.equal(1);
  });
});
