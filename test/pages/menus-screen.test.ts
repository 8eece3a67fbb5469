// The menu screen /admin/menus without JavaScript: both menus, each a form whose
// buttons (add a link, find and add a page, move up and down, nest, remove) post the
// whole form and bring it back changed and unsaved, until «Enregistrer le menu»;
// refused input shown by its row and kept; linked pages deleted or private flagged.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { saveMenu } from '../../models/pages/menus.js';
import { menuMessages } from '../../models/pages/messages.js';
import { deletePage } from '../../models/pages/page-delete.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makePage } from './helpers.js';

/** The rows of a menu's form as the page shows them: `label|page|url|level` per row. */
function rowsOf(html: string, name: string): string[] {
  const form = new RegExp(`<form method="post" action="/admin/menus/${name}[^"]*"[\\s\\S]*?</form>`).exec(html)?.[0] ?? '';
  const fields = new Map<number, Record<string, string>>();
  for (const match of form.matchAll(/name="(label|page|url|level)_(\d+)"[^>]*?value="([^"]*)"/g)) {
    const index = Number(match[2]);
    fields.set(index, { ...fields.get(index), [match[1]]: match[3] });
  }
  return [...fields.entries()].sort(([a], [b]) => a - b).map(([, row]) => `${row.label ?? ''}|${row.page ?? ''}|${row.url ?? ''}|${row.level}`);
}

/** The posted fields of a menu's rows as `rowsOf` prints them. */
function fieldsOf(rows: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  rows.forEach((row, index) => {
    const [label, page, url, level] = row.split('|');
    fields[`label_${index}`] = label;
    if (page) fields[`page_${index}`] = page;
    else fields[`url_${index}`] = url;
    fields[`level_${index}`] = level;
  });
  return fields;
}

describe('the menu screen /admin/menus (no JavaScript)', () => {
  let app: App;
  let ctx: AppContext;
  let editor: AdminClient;
  let guides: { id: number };
  let installer: { id: number };
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    editor = await AdminClient.as(app, { permissions: ['admin.access', 'menus.manage'] });
    guides = await makePage(ctx, { title: 'Guides', slug: 'guides' });
    installer = await makePage(ctx, { title: 'Installer', slug: 'installer', parent_id: guides.id });
  });
  const post = (name: string, fields: Record<string, string>) => editor.post(`/admin/menus/${name}`, fields, '/admin/menus');

  it('shows both menus, never edited, and is linked from the navigation for menus.manage only', async () => {
    const page = await editor.get('/admin/menus');
    expect(page.status).to.equal(200);
    const text = textOf(page.text);
    expect(text).to.include('Menu de l’en-tête').and.include('Menu du pied de page');
    expect(text).to.include('Jamais modifié : le site montre la navigation automatique').and.include('Jamais modifié : le site montre le lien vers l’accueil');
    expect(page.text).to.include('action="/admin/menus/header#menu-header"').and.include('action="/admin/menus/footer#menu-footer"');
    expect(page.text).to.include('href="/admin/menus"');
    const other = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
    expect((await other.get('/admin/pages')).text).not.to.include('href="/admin/menus"');
    expect((await other.get('/admin/menus')).status).to.equal(403);
  });

  it('builds a menu with its buttons, unsaved until «Enregistrer le menu», then saves it for the site', async () => {
    // «Ajouter un lien»: an empty row, nothing saved.
    let page = await post('header', { action: 'add-link' });
    expect(page.status).to.equal(200);
    expect(rowsOf(page.text, 'header')).to.deep.equal(['|||0']);
    expect(textOf(page.text)).to.include('Modifications non enregistrées');
    expect(await ctx.db('app_page_menus').count({ n: '*' })).to.deep.equal([{ n: 0 }]);

    // The page picker: a search, then «Ajouter» on a match.
    page = await post('header', { ...fieldsOf(['Docs||https://example.org/docs|0']), q: 'instal', action: 'search' });
    expect(textOf(page.text)).to.include('Installer /guides/installer');
    expect(page.text).to.include(`value="add-page:${installer.id}"`);
    page = await post('header', { ...fieldsOf(rowsOf(page.text, 'header')), action: `add-page:${installer.id}` });
    page = await post('header', { ...fieldsOf(rowsOf(page.text, 'header')), action: `add-page:${guides.id}` });
    expect(rowsOf(page.text, 'header')).to.deep.equal(['Docs||https://example.org/docs|0', `|${installer.id}||0`, `|${guides.id}||0`]);
    expect(textOf(page.text)).to.include('Page « Installer » /guides/installer');

    // «Monter» moves Guides above Installer; «Sous-lien» nests Installer under Guides.
    page = await post('header', { ...fieldsOf(rowsOf(page.text, 'header')), action: 'up:2' });
    expect(rowsOf(page.text, 'header')).to.deep.equal(['Docs||https://example.org/docs|0', `|${guides.id}||0`, `|${installer.id}||0`]);
    page = await post('header', { ...fieldsOf(rowsOf(page.text, 'header')), action: 'indent:2' });
    expect(rowsOf(page.text, 'header')).to.deep.equal(['Docs||https://example.org/docs|0', `|${guides.id}||0`, `|${installer.id}||1`]);
    // «Descendre» on Docs moves it below Guides and its sub-link.
    page = await post('header', { ...fieldsOf(rowsOf(page.text, 'header')), action: 'down:0' });
    expect(rowsOf(page.text, 'header')).to.deep.equal([`|${guides.id}||0`, `|${installer.id}||1`, 'Docs||https://example.org/docs|0']);
    expect(await ctx.db('app_page_menus').count({ n: '*' })).to.deep.equal([{ n: 0 }]);

    const rows = rowsOf(page.text, 'header');
    const saved = await post('header', { ...fieldsOf(rows), label_1: 'Bien démarrer', action: 'save' });
    expect(saved.status).to.equal(303);
    const shown = await editor.follow(saved);
    expect(textOf(shown.text)).to.include('Le menu de l’en-tête est enregistré.');
    expect(rowsOf(shown.text, 'header')).to.deep.equal([`|${guides.id}||0`, `Bien démarrer|${installer.id}||1`, 'Docs||https://example.org/docs|0']);
    const row = await ctx.db('app_page_menus').where({ name: 'header' }).first('items');
    expect(row!.items).to.deep.equal([
      { label: null, page_id: guides.id, url: null, children: [{ label: 'Bien démarrer', page_id: installer.id, url: null, children: [] }] },
      { label: 'Docs', page_id: null, url: 'https://example.org/docs', children: [] },
    ]);
    const site = await request(app).get('/guides');
    expect(site.text).to.include('<a href="/guides/installer">Bien démarrer</a>').and.include('<a href="https://example.org/docs">Docs</a>');

    // «Retirer» then save: the sub-link goes up a level when its link is removed.
    page = await post('header', { ...fieldsOf(rowsOf(shown.text, 'header')), action: 'remove:0' });
    expect(rowsOf(page.text, 'header')).to.deep.equal([`Bien démarrer|${installer.id}||0`, 'Docs||https://example.org/docs|0']);
    // An empty row is left out when saving.
    await editor.follow(await post('header', { ...fieldsOf(rowsOf(page.text, 'header')), label_2: '', url_2: '', level_2: '0', action: 'save' }));
    expect((await ctx.db('app_page_menus').where({ name: 'header' }).first('items'))!.items).to.have.length(2);
  });

  it('refuses a bad address and a link without label by their rows, keeping what was typed and saving nothing', async () => {
    const res = await post('footer', { ...fieldsOf(['Bon||/contact|0', 'Piège||javascript:alert(1)|0', '||https://example.org|1']), action: 'save' });
    expect(res.status).to.equal(400);
    expect(res.text).to.include('value="javascript:alert(1)"');
    expect(res.text).to.include('id="field-items[1].url"').and.include('id="field-items[1].children[0].label"');
    expect(textOf(res.text)).to.include(menuMessages.urlInvalid).and.include(menuMessages.labelRequired);
    expect(rowsOf(res.text, 'footer')).to.deep.equal(['Bon||/contact|0', 'Piège||javascript:alert(1)|0', '||https://example.org|1']);
    expect(res.text).to.include('href="#field-items[1].url"');
    expect(await ctx.db('app_page_menus').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('flags a linked page that is deleted or private, which the site leaves out', async () => {
    const hidden = await makePage(ctx, { title: 'Brouillon', slug: 'brouillon', visibility: 'private' });
    const doomed = await makePage(ctx, { title: 'Éphémère', slug: 'ephemere' });
    await saveMenu(ctx, 'footer', [
      { label: null, page_id: hidden.id, url: null, children: [] },
      { label: null, page_id: doomed.id, url: null, children: [] },
      { label: null, page_id: installer.id, url: null, children: [] },
    ]);
    await deletePage(ctx, doomed.id);
    const text = textOf((await editor.get('/admin/menus')).text);
    expect(text).to.include('Page « Brouillon » /brouillon Page privée ou non publiée : absent du site');
    expect(text).to.include(`Page n° ${doomed.id} Page supprimée : absent du site`);
    expect(text).to.match(/Page « Installer » \/guides\/installer (?!Page)/);
    const site = await request(app).get('/guides');
    expect(site.text).to.include('<a href="/guides/installer">Installer</a>');
    expect(site.text).not.to.include('Brouillon').and.not.to.include('/ephemere');
  });

  it('answers 404 for a menu that does not exist', async () => {
    const res = await post('sidebar', { action: 'save' });
    expect(res.status).to.equal(404);
    expect(await ctx.db('app_page_menus').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });
});
