// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The editor's layout in Chromium (issue 23, «content first»): a page of 5 blocks fits in
// 1.5 screen heights at 1280 × 800, its title, blocks and actions before its properties;
// the actions' bar stays in view while scrolling; the properties sit in a side panel at
// 1024 px and wider, in folded sections below; axe-core finds nothing with them open or
// folded, JavaScript on and off.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { saveDraft } from '../../models/pages/drafts.js';
import { createPage } from '../../models/pages/pages.js';
import { useBrowserSite } from '../support/browser.js';
import { caller } from '../support/fixtures.js';
import { axeViolations } from '../support/walk.js';

const SCREEN = { width: 1280, height: 800 };

describe('page editor layout in a browser', function () {
  this.timeout(120_000);
  const site = useBrowserSite();

  async function editorTab(javaScriptEnabled: boolean, width = SCREEN.width): Promise<Page> {
    const { cookie } = await caller(site.ctx, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
    const tab = await site.open({ javaScriptEnabled, cookie, width, timeoutMs: 10_000 });
    await tab.setViewportSize({ width, height: SCREEN.height });
    return tab;
  }

  async function fiveBlocks() {
    return createPage(site.ctx, {
      title: 'Atelier de poterie',
      blocks: [
        { type: 'heading', text: 'Nos ateliers', level: 2 },
        { type: 'paragraph', text: 'Tournage et modelage, pour tous les âges, le samedi matin.' },
        { type: 'paragraph', text: 'Chaque atelier dure deux heures ; la terre et les outils sont fournis.' },
        { type: 'quote', text: 'On en sort les mains pleines de terre et la tête légère.', cite: 'Une participante' },
        { type: 'paragraph', text: 'Inscriptions à l’accueil ou par courriel.' },
      ],
    });
  }

  /** Where the editor's parts sit on the page, in CSS pixels from the document's top. */
  async function measure(tab: Page): Promise<Record<string, number>> {
    // A string, not a function: the test's compiler names nested functions with a helper
    // the page does not have.
    return tab.evaluate(`(() => {
      const box = (selector) => document.querySelector(selector)?.getBoundingClientRect();
      const lastBlock = [...document.querySelectorAll('ol.blocks > li.block-card')].pop().getBoundingClientRect();
      return {
        documentHeight: document.documentElement.scrollHeight,
        titleTop: box('#page-title').top + scrollY,
        barBottom: box('.editor-bar').bottom + scrollY,
        lastBlockBottom: lastBlock.bottom + scrollY,
        propertiesTop: box('.editor-properties').top + scrollY,
        propertiesLeft: box('.editor-properties').left,
        mainRight: box('.editor-main').right,
      };
    })()`);
  }

  for (const [javaScriptEnabled, withDraft] of [
    [false, false],
    [true, false],
    [true, true],
  ]) {
    const mode = `${javaScriptEnabled ? 'JavaScript on' : 'JavaScript off'}${withDraft ? ', a draft pending' : ''}`;

    it(`${mode}: a page of 5 blocks fits in 1.5 screen heights at 1280 × 800, title and blocks first, properties in a side panel`, async () => {
      const page = await fiveBlocks();
      if (withDraft) await saveDraft(site.ctx, page.id, { title: 'Atelier de poterie et de céramique' });
      const tab = await editorTab(javaScriptEnabled);
      await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
      const sizes = await measure(tab);
      console.log(`      ${mode}: document ${sizes.documentHeight} px high (${(sizes.documentHeight / SCREEN.height).toFixed(2)} screens)`);
      expect(sizes.documentHeight).to.be.at.most(1.5 * SCREEN.height);
      // The actions and the title are on the first screen; the blocks follow at once.
      expect(sizes.barBottom).to.be.below(SCREEN.height);
      expect(sizes.titleTop).to.be.below(SCREEN.height / 2);
      expect(sizes.lastBlockBottom).to.be.at.most(1.5 * SCREEN.height);
      // The properties are beside the content, not above it.
      expect(sizes.propertiesLeft).to.be.at.least(sizes.mainRight);
    });
  }

  it('JavaScript on: the bar stays in view at the bottom of the page; the properties open in the side panel, and axe-core finds nothing', async () => {
    const page = await fiveBlocks();
    const tab = await editorTab(true);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    expect(await tab.locator('details.property:not([open])').count()).to.equal(0);
    expect(await tab.locator('#page-slug').isVisible()).to.equal(true);
    await tab.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    const bar = (await tab.locator('.editor-bar').boundingBox())!;
    expect(bar.y).to.be.at.least(0);
    expect(bar.y + bar.height).to.be.at.most(SCREEN.height);
    expect(await tab.getByRole('button', { name: 'Enregistrer le brouillon' }).isVisible()).to.equal(true);
    // «Programmer…» in the bar leads to the date of the schedule.
    await tab.getByRole('link', { name: 'Programmer…' }).click();
    expect(await tab.evaluate('document.activeElement.id')).to.equal('schedule-at');
    expect(await axeViolations(tab)).to.deep.equal([]);
    // The address is shown whole; «slug» is a word of the code, not of the screen.
    expect(await tab.locator('.editor-url').textContent()).to.include(`${site.ctx.config.baseUrl}/atelier-de-poterie`);
    expect(await tab.locator('body').innerText()).to.not.match(/slug/i);
  });

  it('JavaScript on, 800 px wide: the properties come after the blocks, folded, and axe-core finds nothing, folded or open', async () => {
    const page = await fiveBlocks();
    const tab = await editorTab(true, 800);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    expect(await tab.locator('details.property[open]').count()).to.equal(0);
    const lastBlock = (await tab.locator('ol.blocks > li.block-card').last().boundingBox())!;
    const properties = (await tab.locator('.editor-properties').boundingBox())!;
    expect(properties.y).to.be.above(lastBlock.y + lastBlock.height);
    expect(await axeViolations(tab)).to.deep.equal([]);
    for (const summary of await tab.locator('details.property > summary').all()) await summary.click();
    expect(await tab.locator('details.property:not([open])').count()).to.equal(0);
    expect(await axeViolations(tab)).to.deep.equal([]);
  });

  it('JavaScript off: the properties are folded sections that open without a script; a refused field opens its own; axe-core finds nothing', async () => {
    const page = await fiveBlocks();
    const tab = await editorTab(false);
    const inspector = await editorTab(true);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    expect(await tab.locator('details.property[open]').count()).to.equal(0);
    expect(await axeViolations(tab, inspector)).to.deep.equal([]);
    await tab.locator('#property-address > summary').click();
    await tab.locator('#page-slug').fill('Pas Une Adresse !');
    await tab.locator('#property-seo > summary').click();
    await tab.getByLabel('Titre pour les moteurs de recherche').fill('Poterie');
    await tab.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
    await tab.waitForLoadState();
    // Refused: the section of the refused field is open, what was typed is kept.
    expect(await tab.locator('details.property[open]').evaluateAll((sections) => sections.map((section) => section.id))).to.deep.equal(['property-address']);
    expect(await tab.locator('#page-slug').inputValue()).to.equal('Pas Une Adresse !');
    expect(await tab.locator('#page-seo-title').inputValue()).to.equal('Poterie');
    expect(await axeViolations(tab, inspector)).to.deep.equal([]);
  });
});
