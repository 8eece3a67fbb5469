// The page editor for each team role (issue 26): «Publier» and «Programmer» only for
// whoever may publish the page; a Contributeur saves drafts of its own pages, its
// publication posted anyway is refused (403) with nothing written; another's page is
// shown without the writing buttons, and its form posted anyway is refused.
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { createPage } from '../../models/pages/pages.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { makeUser } from '../support/fixtures.js';
import { formFields, setField, submitEditor } from '../pages/editor-form.js';

describe('teams: the page editor by role', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const as = (role: string) => AdminClient.as(app, { role });
  const pageOf = async (client: AdminClient, title: string) =>
    (await createPage(ctx, { title }, { id: client.user.id, name: client.user.name, ip: null }, undefined, { publish: false })).id;
  const live = async (id: number) => (await ctx.db('app_pages').where({ id }).first())!;
  const PUBLISH = 'name="action" value="publish"';
  const SCHEDULE = 'name="action" value="schedule"';

  it('a Contributeur sees no «Publier» nor «Programmer», saves its draft, and a publication posted anyway is refused', async () => {
    const client = await as('contributor');
    const id = await pageOf(client, 'Ma page');
    const editor = await client.get(`/admin/pages/${id}`);
    expect(editor.status).to.equal(200);
    expect(editor.text).to.include('Enregistrer le brouillon');
    expect(editor.text).to.not.include(PUBLISH).and.not.include(SCHEDULE);
    expect(textOf(editor.text)).to.include('une personne qui peut publier les met en ligne');

    const fields = setField(formFields(editor.text), 'title', 'Ma page revue');
    const saved = await submitEditor(client, id, fields, 'save');
    expect(saved.status).to.equal(303);
    const afterSave = await live(id);
    expect(afterSave.published_revision).to.equal(null);
    expect(
      (await ctx
        .db('app_page_revisions')
        .where({ page_id: id, number: afterSave.draft_revision as number })
        .first())!.title,
    ).to.equal('Ma page revue');

    const again = formFields((await client.get(`/admin/pages/${id}`)).text);
    const refused = await submitEditor(client, id, again, 'publish');
    expect(refused.status).to.equal(403);
    expect(textOf(refused.text)).to.include('Publier les pages');
    expect(await live(id)).to.include({ published_revision: null, revision: afterSave.revision });
  });

  it('a Contributeur sees another’s page without the writing buttons; its form posted anyway is refused', async () => {
    const client = await as('contributor');
    const other = await makeUser(ctx);
    const id = (await createPage(ctx, { title: 'La page d’une autre' }, { id: other.id, name: other.name, ip: null })).id;
    const editor = await client.get(`/admin/pages/${id}`);
    expect(editor.status).to.equal(200);
    expect(editor.text).to.not.include('Enregistrer le brouillon');
    const mine = await as('contributor');
    const ownId = await pageOf(mine, 'Modèle');
    const fields = formFields((await mine.get(`/admin/pages/${ownId}`)).text);
    const refused = await submitEditor(client, id, setField(fields, 'title', 'Volée'), 'save');
    expect(refused.status).to.equal(403);
    expect((await live(id)).draft_revision).to.equal(null);
  });

  it('an Auteur publishes its own page from the editor; an Éditeur sees «Publier» on anyone’s page', async () => {
    const author = await as('author');
    const id = await pageOf(author, 'Page d’auteur');
    const editor = await author.get(`/admin/pages/${id}`);
    expect(editor.text).to.include(PUBLISH).and.include(SCHEDULE);
    const published = await submitEditor(author, id, formFields(editor.text), 'publish');
    expect(published.status).to.equal(303);
    expect((await live(id)).published_revision).to.not.equal(null);

    const chief = await as('editor');
    const page = await chief.get(`/admin/pages/${id}`);
    expect(page.text).to.include(PUBLISH).and.include(SCHEDULE);
    const tree = await (await as('contributor')).get('/admin/pages');
    expect(tree.text).to.include('/admin/pages/new');
  });
});
