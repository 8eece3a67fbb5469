// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// Images in place in Chromium (issue 23, item 3): a file chosen inside an image block
// ends on the published page — without JavaScript it goes with the form's save
// (multipart), with JavaScript it is uploaded at once (with a progress bar) through the
// media API; a refused file brings the form back whole with a message; the text
// alternative is required unless the image is marked decorative; the library opens in a
// <dialog> that the keyboard drives; axe-core finds nothing.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { getDraft } from '../../models/pages/drafts.js';
import { createPage, getPage } from '../../models/pages/pages.js';
import { addMedia } from '../../services/pages-media.js';
import { submitWith, useBrowserSite } from '../support/browser.js';
import { caller } from '../support/fixtures.js';
import { axeViolations } from '../support/walk.js';
import { PNG_BYTES } from './helpers.js';

describe('image blocks in the editor, in a browser', function () {
  this.timeout(120_000);
  const site = useBrowserSite();

  async function editorTab(javaScriptEnabled: boolean): Promise<Page> {
    const { cookie } = await caller(site.ctx, { name: 'Claire Martin', permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
    return site.open({ javaScriptEnabled, cookie, timeoutMs: 15_000 });
  }
  const file = (name = 'atelier.png', buffer = PNG_BYTES) => ({ name, mimeType: 'image/png', buffer });
  const mediaCount = async () => Number((await site.ctx.db('app_pages_media').count({ n: '*' }).first())!.n);

  async function publicImage(tab: Page, path: string): Promise<{ src: string | null; alt: string | null }> {
    await tab.goto(`${site.baseUrl}${path}`);
    const image = tab.locator('main figure.block-image img');
    return { src: await image.getAttribute('src'), alt: await image.getAttribute('alt') };
  }

  it('JavaScript off: the file goes with «Publier» and the picture is on the published page, with its text alternative', async () => {
    const page = await createPage(site.ctx, {
      title: 'Atelier',
      slug: 'atelier',
      blocks: [
        { type: 'paragraph', text: 'Le four.' },
        { type: 'image', media_id: null },
      ],
    });
    const tab = await editorTab(false);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    await tab.locator('#b-0-text').fill('Le four à bois.');
    // Refused first: a picture without a text alternative, nor marked decorative.
    await tab.locator('#b-1-file').setInputFiles(file());
    await tab.getByRole('button', { name: 'Publier' }).click();
    await tab.waitForLoadState();
    expect(await tab.locator('#b-1-alt-error, .block-card .field-error').first().textContent()).to.include('Texte alternatif requis');
    expect(await tab.locator('#b-0-text').inputValue()).to.equal('Le four à bois.');
    expect(await mediaCount()).to.equal(0);
    expect(await axeViolations(tab, await editorTab(true))).to.deep.equal([]);
    // The file again (a browser never keeps it), with its text: published with the page.
    await tab.locator('#b-1-file').setInputFiles(file());
    await tab.locator('#b-1-alt').fill('Le four à bois de l’atelier');
    await tab.getByRole('button', { name: 'Publier' }).click();
    await tab.waitForLoadState();
    expect(await tab.locator('.alert-success, [role="status"]').first().textContent()).to.include('La page est publiée.');
    const media = await site.ctx.db('app_pages_media').first();
    expect(media).to.include({ original_name: 'atelier.png', alt: 'Le four à bois de l’atelier' });
    const shown = await publicImage(tab, '/atelier');
    expect(shown).to.deep.equal({ src: `/uploads/${media!.filename}`, alt: 'Le four à bois de l’atelier' });
    expect(await tab.locator('main').textContent()).to.include('Le four à bois.');
  });

  it('JavaScript off: a refused file (not an image) brings the form back whole, with a message on its block', async () => {
    const page = await createPage(site.ctx, { title: 'Atelier', blocks: [{ type: 'image', media_id: null }] });
    const tab = await editorTab(false);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    await tab.locator('#page-title').fill('Atelier de poterie');
    await tab.locator('#b-0-alt').fill('Un tour de potier');
    await tab.locator('#b-0-file').setInputFiles(file('notes.png', Buffer.from('pas une image')));
    await tab.getByRole('button', { name: 'Enregistrer le brouillon' }).click();
    await tab.waitForLoadState();
    expect(await tab.locator('#b-0-file-error').textContent())
      .to.include('Image refusée')
      .and.include('Seules les images PNG, JPEG et WebP sont acceptées.');
    expect(await tab.locator('#page-title').inputValue()).to.equal('Atelier de poterie');
    expect(await tab.locator('#b-0-alt').inputValue()).to.equal('Un tour de potier');
    expect(await mediaCount()).to.equal(0);
    // Nothing saved: no draft, the page as it was.
    expect(await getPage(site.ctx, page.id)).to.include({ title: 'Atelier', draft_revision: null });
  });

  it('JavaScript off: a decorative image needs no text alternative and is shown with an empty one', async () => {
    const media = await addMedia(
      site.ctx,
      null,
      { buffer: PNG_BYTES, type: 'png', contentType: 'image/png', size: PNG_BYTES.length, originalName: 'frise.png' },
      { alt: 'Frise' },
    );
    const page = await createPage(site.ctx, { title: 'Frise', slug: 'frise', blocks: [{ type: 'image', media_id: null }] });
    const tab = await editorTab(false);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    await tab.locator('#block-0 details.media-picker > summary').click();
    await tab.locator(`#block-0 input[type="radio"][value="${media.id}"]`).check();
    await tab.getByLabel('Image décorative (rien à décrire)').check();
    await tab.getByRole('button', { name: 'Publier' }).click();
    await tab.waitForLoadState();
    expect(await publicImage(tab, '/frise')).to.deep.equal({ src: media.url, alt: '' });
  });

  it('JavaScript on: the file is uploaded at once with its progress, the block shows it, and «Publier» puts it on the page', async () => {
    const page = await createPage(site.ctx, { title: 'Atelier', slug: 'atelier', blocks: [{ type: 'paragraph', text: 'Le four.' }] });
    const tab = await editorTab(true);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    // An image block added in place, its file sent as soon as it is chosen.
    await tab.locator('#add-block-type').selectOption('image');
    await tab.getByRole('button', { name: 'Ajouter le bloc' }).click();
    const block = tab.locator('ol.blocks > li.block-card').nth(1);
    await block.locator('input[type="file"]').setInputFiles(file());
    await block.locator('.upload-progress', { hasText: 'Image envoyée et ajoutée à la médiathèque.' }).waitFor();
    expect(await block.locator('.upload-progress progress').getAttribute('value')).to.equal('100');
    const media = await site.ctx.db('app_pages_media').first();
    expect(media).to.include({ original_name: 'atelier.png' });
    expect(await block.locator('[data-image-current] img').getAttribute('src')).to.equal(`/uploads/${media!.filename}`);
    expect(await block.locator('input[type="file"]').inputValue()).to.equal('');
    await block.getByLabel('Texte alternatif').fill('Le four à bois');
    await submitWith(tab, tab.getByRole('button', { name: 'Publier' }));
    expect(await mediaCount()).to.equal(1);
    expect(await publicImage(tab, '/atelier')).to.deep.equal({ src: `/uploads/${media!.filename}`, alt: 'Le four à bois' });
  });

  it('JavaScript on: «Choisir dans la médiathèque…» opens a dialog the keyboard drives; the picture chosen goes to its block', async () => {
    const media = await addMedia(
      site.ctx,
      null,
      { buffer: PNG_BYTES, type: 'png', contentType: 'image/png', size: PNG_BYTES.length, originalName: 'four.png' },
      { alt: 'Le four' },
    );
    const page = await createPage(site.ctx, { title: 'Atelier', blocks: [{ type: 'image', media_id: null }] });
    const tab = await editorTab(true);
    await tab.goto(`${site.baseUrl}/admin/pages/${page.id}`);
    expect(await tab.locator('#block-0 details.media-picker').isVisible()).to.equal(false);
    const open = tab.getByRole('button', { name: 'Choisir dans la médiathèque…' });
    await open.focus();
    await tab.keyboard.press('Enter');
    const dialog = tab.getByRole('dialog', { name: 'Choisir dans la médiathèque' });
    await dialog.waitFor();
    expect(await axeViolations(tab)).to.deep.equal([]);
    // Échap closes it, the focus back on the button.
    // A key's effects (the click Enter makes, the dialog's «close» event) are tasks of
    // their own in the page: waited for, on a busy machine they may follow the key press.
    await tab.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await tab.waitForFunction('document.activeElement.hasAttribute("data-open-library")');
    await tab.keyboard.press('Enter');
    await dialog.waitFor();
    expect(await tab.evaluate('document.activeElement.getAttribute("data-media-id")')).to.equal(String(media.id));
    await tab.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    expect(await tab.locator(`#block-0 input[type="radio"][value="${media.id}"]`).isChecked()).to.equal(true);
    expect(await tab.locator('#b-0-alt').inputValue()).to.equal('Le four');
    await submitWith(tab, tab.getByRole('button', { name: 'Enregistrer le brouillon' }));
    expect((await getDraft(site.ctx, page.id)).blocks[0]).to.include({ type: 'image', media_id: media.id, alt: 'Le four' });
  });
});
