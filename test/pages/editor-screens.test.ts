// The screens around the editor: a page's history (revisions listed with date, author
// and state; two compared side by side; «Restaurer» into the draft) and the page tree
// (each page's state, newest change and its author; the empty state).
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { frenchDates } from '../../lib/dates.js';
import { getDraft, publishDraft, saveDraft, schedulePublication } from '../../models/pages/drafts.js';
import { createPage, updatePage } from '../../models/pages/pages.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { countStatements, withoutIds } from './helpers.js';

describe('page history and tree screens', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp({ APP_TIME_ZONE: 'Europe/Paris' });
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const editor = () => AdminClient.as(app, { name: 'Rédactrice', permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });

  it('lists the revisions newest first with their date, author and state, compares two side by side, and restores one into the draft', async () => {
    const client = await editor();
    const actor = { id: client.user.id, name: client.user.name, ip: null };
    const page = await createPage(ctx, { title: 'Histoire', blocks: [{ type: 'paragraph', text: 'Version une' }] }, actor);
    await updatePage(ctx, page.id, { title: 'Histoire revue', blocks: [{ type: 'paragraph', text: 'Version deux' }] }, actor);
    await saveDraft(ctx, page.id, { blocks: [{ type: 'paragraph', text: 'Brouillon trois' }] }, actor);

    const list = await client.get(`/admin/pages/${page.id}/revisions`);
    expect(list.status).to.equal(200);
    const rows = [...list.text.matchAll(/<tr>\s*<td>n° (\d+)<\/td>\s*<td>([^<]*)<\/td>\s*<td>([^<]*)<\/td>\s*<td>([\s\S]*?)<\/td>/g)].map((match) => [
      match[1],
      match[3],
      textOf(match[4]).trim(),
    ]);
    expect(rows).to.deep.equal([
      ['3', 'Rédactrice', 'Brouillon en attente'],
      ['2', 'Rédactrice', 'En ligne'],
      ['1', 'Rédactrice', 'Remplacée'],
    ]);

    const compare = await client.get(`/admin/pages/${page.id}/revisions/compare?a=1&b=2`);
    expect(compare.status).to.equal(200);
    const title = /<tr class="changed">\s*<th scope="row">Titre[\s\S]*?<\/tr>/.exec(compare.text)![0];
    expect(textOf(title)).to.include('Histoire').and.include('Histoire revue');
    expect(textOf(/<tr class="changed">\s*<th scope="row">Bloc 1[\s\S]*?<\/tr>/.exec(compare.text)![0]))
      .to.include('Version une')
      .and.include('Version deux');
    expect(compare.text).to.match(/<tr>\s*<th scope="row">Adresse/);

    const restored = await client.post(`/admin/pages/${page.id}/revisions/1/restore`, {}, `/admin/pages/${page.id}/revisions/compare?a=1&b=2`);
    expect(restored.status).to.equal(303);
    const draft = await getDraft(ctx, page.id);
    expect(draft.title).to.equal('Histoire');
    expect(withoutIds(draft.blocks)).to.deep.equal([{ type: 'paragraph', text: 'Version une' }]);
    expect(textOf((await client.follow(restored)).text)).to.include('La révision 1 est copiée dans le brouillon');
    const reader = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view'] });
    expect((await reader.get(`/admin/pages/${page.id}/revisions`)).status).to.equal(200);
    expect((await reader.post(`/admin/pages/${page.id}/revisions/1/restore`, {}, `/admin/pages/${page.id}/revisions`)).status).to.equal(403);
  });

  it('shows each page once with its state, newest change and author, with no statement more', async () => {
    const client = await editor();
    const actor = { id: client.user.id, name: client.user.name, ip: null };
    await createPage(ctx, { title: 'A en ligne' }, actor);
    const { count: before } = await countStatements(ctx, () => client.get('/admin/pages'));
    const draft = await createPage(ctx, { title: 'B brouillon' }, actor);
    await saveDraft(ctx, draft.id, { title: 'B brouillon revu' }, actor);
    const scheduled = await createPage(ctx, { title: 'C programmée' }, actor);
    await saveDraft(ctx, scheduled.id, { title: 'C bientôt' }, actor);
    await schedulePublication(ctx, scheduled.id, new Date('2099-06-01T08:00:00Z'), actor);
    await createPage(ctx, { title: 'D privée', visibility: 'private' });
    const published = await createPage(ctx, { title: 'E publiée' }, actor);
    await saveDraft(ctx, published.id, { title: 'E publiée' }, actor);
    await publishDraft(ctx, published.id, actor);

    const { result: tree, count } = await countStatements(ctx, () => client.get('/admin/pages'));
    expect(tree.status).to.equal(200);
    const rowText = (title: string) =>
      textOf(new RegExp(`<div class="tree-row">\\s*<a class="tree-title"[^>]*>${title}</a>[\\s\\S]*?</div>`).exec(tree.text)![0]);
    expect(rowText('A en ligne')).to.include('En ligne').and.include('par Rédactrice').and.not.include('Brouillon');
    expect(rowText('B brouillon')).to.include('En ligne').and.include('Brouillon en attente');
    const when = frenchDates('Europe/Paris').dateTime(new Date('2099-06-01T08:00:00Z')).replace(/\s+/g, ' ');
    expect(rowText('C programmée')).to.include(`Programmée le ${when}`).and.include('En ligne');
    expect(rowText('D privée')).to.include('Privée').and.include('par Compte supprimé');
    expect(rowText('E publiée')).to.include('En ligne').and.not.include('Brouillon');
    expect(tree.text.match(/class="tree-row"/g)).to.have.length(5);
    // States, changes and authors come with the rows: no statement more than for one plain page.
    expect(count).to.equal(before);
  });

  it('offers «Créer la première page» when there is none, to those who may create one', async () => {
    const tree = await (await editor()).get('/admin/pages');
    expect(textOf(tree.text)).to.include('Aucune page pour l’instant');
    expect(tree.text).to.include('href="/admin/pages/new">Créer la première page</a>');
    const reader = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view'] });
    expect((await reader.get('/admin/pages')).text).to.not.include('Créer la première page');
  });
});
