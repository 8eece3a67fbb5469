// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// Presence in two browsers (issue 23): Paul has the page tree and a page's editor open;
// Claire opens that page's editor; Paul sees «Claire Martin modifie cette page depuis …»
// in both without reloading, well within 30 s (the heartbeat and the poll run every
// 500 ms here, PAGE_PRESENCE_INTERVAL_MS, instead of 20 s), and it goes once Claire has
// left for a minute (the application's clock moved forward).
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createPage } from '../../models/pages/pages.js';
import { useBrowserSite } from '../support/browser.js';
import { caller } from '../support/fixtures.js';

const MANAGE = ['admin.access', 'pages.view', 'pages.manage'];

describe('presence in two browsers', function () {
  this.timeout(120_000);
  const site = useBrowserSite({ PAGE_PRESENCE_INTERVAL_MS: '500' });
  afterEach(() => site.ctx.clock.set());

  async function tabOf(name: string): Promise<Page> {
    const { cookie } = await caller(site.ctx, { name, permissions: MANAGE });
    return site.open({ javaScriptEnabled: true, cookie, timeoutMs: 10_000 });
  }

  it('a second browser sees the first one’s presence in the editor and the tree within 30 s, and sees it go', async () => {
    const page = await createPage(site.ctx, { title: 'Horaires', blocks: [{ type: 'paragraph', text: 'Ouvert le samedi.' }] });
    const paulEditor = await tabOf('Paul Durand');
    await paulEditor.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    const paulTree = await paulEditor.context().newPage();
    await paulTree.goto(`${site.baseUrl}/admin/pages`);
    expect(await paulEditor.locator('.editor-presence').isVisible()).to.equal(false);
    expect(await paulTree.locator(`[data-presence-page="${page.id}"]`).isVisible()).to.equal(false);

    const claire = await tabOf('Claire Martin');
    const opened = Date.now();
    await claire.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    await paulEditor.locator('.editor-presence', { hasText: 'Claire Martin modifie cette page depuis' }).waitFor({ timeout: 30_000 });
    await paulTree.locator(`[data-presence-page="${page.id}"]`, { hasText: 'Claire Martin modifie cette page depuis' }).waitFor({ timeout: 30_000 });
    const seenAfter = Date.now() - opened;
    console.log(`      Claire seen by Paul's editor and tree ${seenAfter} ms after she opened the page`);
    expect(seenAfter).to.be.below(30_000);
    // Claire never sees herself, only Paul.
    await claire.locator('.editor-presence', { hasText: 'Paul Durand modifie cette page depuis' }).waitFor();
    expect(await claire.locator('.editor-presence').textContent()).to.not.include('Claire Martin');

    // Claire leaves; a minute later (the clock moved on) Paul's screens no longer show her.
    await claire.context().close();
    // A heartbeat of hers still on its way lands before the clock moves.
    await paulTree.waitForTimeout(1_500);
    site.ctx.clock.set(() => Date.now() + 61_000);
    await paulTree.locator(`[data-presence-page="${page.id}"]`).waitFor({ state: 'hidden', timeout: 30_000 });
    // Paul's own heartbeats go on meanwhile: his editor shows nobody, not himself.
    await paulEditor.locator('.editor-presence').waitFor({ state: 'hidden', timeout: 30_000 });
  });
});
