// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// Autosave in Chromium (issue 23): with JavaScript, what is typed is saved as the draft
// 5 s after typing stops, the bar says «Brouillon enregistré à …», and the text is there
// after a reload; a run of autosaves adds one revision; a form someone else saved since
// is not autosaved, and the bar says why.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { getDraft, saveDraft } from '../../models/pages/drafts.js';
import { createPage } from '../../models/pages/pages.js';
import { useBrowserSite } from '../support/browser.js';
import { caller } from '../support/fixtures.js';

describe('autosave in a browser (JavaScript on)', function () {
  this.timeout(120_000);
  const site = useBrowserSite();

  async function editorTab(): Promise<Page> {
    const { cookie } = await caller(site.ctx, { name: 'Claire Martin', permissions: ['admin.access', 'pages.view', 'pages.manage'] });
    return site.open({ javaScriptEnabled: true, cookie, timeoutMs: 15_000 });
  }
  const revisions = async (id: number) => Number((await site.ctx.db('app_page_revisions').where({ page_id: id }).count({ n: '*' }).first())!.n);

  it('saves the draft after typing stops, says so in the bar, keeps the text after a reload, and adds one revision for a run of autosaves', async () => {
    const page = await createPage(site.ctx, { title: 'Horaires', blocks: [{ type: 'paragraph', text: 'Ouvert le samedi.' }] });
    const before = await revisions(page.id);
    const tab = await editorTab();
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    await tab.locator('#b-0-text').fill('Ouvert le samedi et le dimanche.');
    const typed = Date.now();
    await tab.locator('.editor-status', { hasText: /^Brouillon enregistré à \d{1,2}\u00a0h\u00a0\d{2}$/ }).waitFor();
    const waited = Date.now() - typed;
    console.log(`      first autosave shown ${waited} ms after typing stopped`);
    expect(waited).to.be.at.least(4_500);
    expect((await getDraft(site.ctx, page.id)).blocks[0].text).to.equal('Ouvert le samedi et le dimanche.');

    // Typing on: the same revision is continued.
    await tab.locator('#b-0-text').fill('Ouvert le samedi et le dimanche matin.');
    await tab.waitForTimeout(6_500);
    expect((await getDraft(site.ctx, page.id)).blocks[0].text).to.equal('Ouvert le samedi et le dimanche matin.');
    expect(await revisions(page.id)).to.equal(before + 1);

    // A reload (nothing left unsaved: no question asked) shows what was typed.
    let asked = false;
    tab.on('dialog', (dialog) => {
      asked = true;
      void dialog.dismiss();
    });
    await tab.reload();
    expect(asked).to.equal(false);
    expect(await tab.locator('#b-0-text').inputValue()).to.equal('Ouvert le samedi et le dimanche matin.');
    expect(await tab.locator('.editor-saved').textContent()).to.match(/^Brouillon enregistré à .* par Claire Martin$/);
  });

  it('does not autosave over someone else’s save, and says to save by hand', async () => {
    const page = await createPage(site.ctx, { title: 'Horaires', blocks: [{ type: 'paragraph', text: 'Ouvert le samedi.' }] });
    const tab = await editorTab();
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    await saveDraft(site.ctx, page.id, { title: 'Horaires d’été' });
    const saved = await getDraft(site.ctx, page.id);
    await tab.locator('#b-0-text').fill('Ouvert tous les jours.');
    await tab.locator('.editor-status', { hasText: 'quelqu’un d’autre a enregistré la page entre-temps' }).waitFor();
    expect(await getDraft(site.ctx, page.id)).to.deep.equal(saved);
    // «Enregistrer le brouillon» merges: both changes are kept.
    await tab.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
    await tab.waitForLoadState();
    const merged = await getDraft(site.ctx, page.id);
    expect(merged.title).to.equal('Horaires d’été');
    expect(merged.blocks[0].text).to.equal('Ouvert tous les jours.');
  });
});
