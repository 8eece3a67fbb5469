// Permissions per section of the tree (issue 26, item 4), through the screens: a role
// whose page permissions come only from a grant on one section sees only that section
// in the tree, its search and the parent picker, writes, publishes, schedules, moves and
// deletes inside it and nowhere else; the grants screen on a page's properties gives
// and withdraws permissions with JavaScript off.
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { grantOnPage } from '../../models/pages/grants.js';
import { createPage } from '../../models/pages/pages.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { caller } from '../support/fixtures.js';
import { formFields, setField, submitEditor } from '../pages/editor-form.js';
import { sectionWorld, type SectionWorld } from './section-world.js';

describe('teams: a role with a grant on one section, on the screens', function () {
  // Each test walks several screens and forms.
  this.timeout(60_000);
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const live = async (id: number) => (await ctx.db('app_pages').where({ id }).first())!;
  async function setUp(): Promise<{ w: SectionWorld; client: AdminClient }> {
    const w = await sectionWorld(ctx);
    return { w, client: new AdminClient(app, w.me) };
  }
  const titlesIn = (html: string) => [...html.matchAll(/class="tree-title" href="[^"]+">([^<]+)</g)].map((match) => match[1]);

  it('the tree shows its section in place of the root pages, opens it, and never shows a page outside it', async () => {
    const { w, client } = await setUp();
    const tree = await client.get('/admin/pages');
    expect(tree.status).to.equal(200);
    expect(tree.text).to.include('href="/admin/pages"'); // «Pages» in the navigation
    expect(titlesIn(tree.text)).to.deep.equal(['Rubrique']);
    expect(tree.text).to.not.include('href="/admin/pages/new"'); // no root page
    expect(tree.text).to.include(`/admin/pages/new?parent=${w.section}`);

    const opened = await client.get(`/admin/pages?open=${w.section}`);
    expect(titlesIn(opened.text)).to.deep.equal(['Rubrique', 'Dedans', 'Mienne dedans']);
    expect(opened.text).to.include('/rubrique/dedans');

    const elsewhere = await client.get(`/admin/pages?open=${w.outside}`);
    expect(titlesIn(elsewhere.text)).to.deep.equal(['Rubrique']);
    expect(textOf(elsewhere.text)).to.include('pas dans les rubriques confiées à ce compte');
  });

  it('its search and its parent picker look inside its section only', async () => {
    const { w, client } = await setUp();
    const search = await client.get('/admin/pages?q=mienne');
    expect(titlesIn(search.text)).to.deep.equal(['Mienne dedans']);
    const candidates = await client.get('/admin/pages/parent-candidates?q=mienne');
    expect(candidates.body.items.map((item: { id: number }) => item.id)).to.deep.equal([w.mineInside]);
  });

  it('its search finds the section’s pages behind more than 2,000 earlier matches elsewhere, and a large section’s from the first ones', async () => {
    const { w, client } = await setUp();
    // 2,050 matches outside, all before the section's in title order: the search walks the section instead.
    await ctx.db.raw(`INSERT INTO app_pages (title, slug, parent_id) SELECT 'Aa chantier ' || g, 'aa-chantier-' || g, NULL FROM generate_series(1, 2050) g`);
    for (const title of ['Zz chantier 1', 'Zz chantier 2']) await createPage(ctx, { title, parent_id: w.section }, { id: w.me.id, name: w.me.name, ip: null });
    const late = await client.get('/admin/pages?q=chantier');
    expect(late.status).to.equal(200);
    expect(titlesIn(late.text)).to.deep.equal(['Zz chantier 1', 'Zz chantier 2']);
    // Moved into the section, the same pages fill the page of results from the first matches.
    await ctx.db('app_pages').whereLike('title', 'Aa chantier %').update({ parent_id: w.section });
    const early = await client.get('/admin/pages?q=chantier');
    expect(titlesIn(early.text)).to.have.length.greaterThan(10);
    expect(titlesIn(early.text).every((title) => title.startsWith('Aa chantier '))).to.equal(true);
  });

  it('a role with admin.access only and no grant sees no «Pages» and is refused the tree', async () => {
    const client = await AdminClient.as(app, { permissions: ['admin.access'] });
    const landing = await client.get('/admin');
    expect(landing.text).to.not.include('href="/admin/pages"');
    expect((await client.get('/admin/pages')).status).to.equal(403);
  });

  it('opens and saves a page of its section from the editor; a page outside is refused, without showing it', async () => {
    const { w, client } = await setUp();
    const editor = await client.get(`/admin/pages/${w.inside}`);
    expect(editor.status).to.equal(200);
    expect(editor.text).to.include('name="action" value="publish"');
    expect((await client.get(`/admin/pages/${w.outside}`)).status).to.equal(403);

    const saved = await submitEditor(client, w.inside, setField(formFields(editor.text), 'title', 'Dedans revue'), 'save');
    expect(saved.status).to.equal(303);
    const refused = await submitEditor(client, w.outside, setField(formFields(editor.text), 'title', 'Volée'), 'save');
    expect(refused.status).to.equal(403);
    expect(textOf(refused.text)).to.include('en dehors des rubriques').and.not.include('Brouillon');
    expect((await live(w.outside)).title).to.equal('Dehors');
  });

  it('publishes and schedules a page of its section from the editor', async () => {
    const { w, client } = await setUp();
    await submitEditor(client, w.inside, setField(formFields((await client.get(`/admin/pages/${w.inside}`)).text), 'title', 'Dedans revue'), 'save');
    const published = await submitEditor(client, w.inside, formFields((await client.get(`/admin/pages/${w.inside}`)).text), 'publish');
    expect(published.status).to.equal(303);
    expect(await live(w.inside)).to.include({ title: 'Dedans revue', draft_revision: null });

    const at = new Date(ctx.clock.nowMs() + 2 * 86_400_000).toISOString().slice(0, 16);
    const fields = setField(formFields((await client.get(`/admin/pages/${w.mineInside}`)).text), 'schedule_at', at);
    const scheduled = await submitEditor(client, w.mineInside, fields, 'schedule');
    expect(scheduled.status, scheduled.text.slice(0, 300)).to.equal(303);
    expect((await live(w.mineInside)).scheduled_at).to.not.equal(null);
  });

  it('moves a page within its section from the editor, never out of it', async () => {
    const { w, client } = await setUp();
    const form = formFields((await client.get(`/admin/pages/${w.inside}`)).text);
    const out = await submitEditor(client, w.inside, setField([...form], 'parent_id', String(w.outside)), 'save');
    expect(out.status).to.equal(403);
    expect(textOf(out.text)).to.include('déplacée que sous une page des rubriques');
    const root = await submitEditor(client, w.inside, setField([...form], 'parent_id', ''), 'save');
    expect(root.status).to.equal(403);
    const draft = await ctx
      .db('app_page_revisions')
      .where({ page_id: w.inside, number: (await live(w.inside)).draft_revision as number })
      .first();
    expect(draft!.parent_id).to.equal(w.section);
    const within = await submitEditor(client, w.inside, setField([...form], 'parent_id', String(w.mineInside)), 'publish');
    expect(within.status).to.equal(303);
    expect((await live(w.inside)).parent_id).to.equal(w.mineInside);
  });

  it('creates pages under its section only, and deletes only there', async () => {
    const { w, client } = await setUp();
    const form = await client.get(`/admin/pages/new?parent=${w.section}`);
    expect(form.status).to.equal(200);
    const token = /name="_csrf" value="([^"]+)"/.exec(form.text)![1];
    const create = (parent: string, title: string) =>
      client.postRaw('/admin/pages', { _csrf: token, title, parent_id: parent, template: 'default', visibility: 'public' });
    expect((await create(String(w.section), 'Nouvelle dedans')).status).to.equal(303);
    expect(await ctx.db('app_pages').where({ title: 'Nouvelle dedans' }).first()).to.include({ parent_id: w.section, author_id: w.me.id });
    const outside = await create(String(w.outside), 'Nouvelle dehors');
    expect(outside.status).to.equal(403);
    const root = await create('', 'Nouvelle racine');
    expect(root.status).to.equal(403);
    expect(textOf(root.text)).to.include('une page parente est nécessaire');
    expect(await ctx.db('app_pages').whereIn('title', ['Nouvelle dehors', 'Nouvelle racine']).count({ n: '*' }).first()).to.deep.equal({ n: 0 });

    expect((await client.post(`/admin/pages/${w.outside}/delete`, {}, `/admin/pages/${w.inside}/delete`)).status).to.equal(403);
    expect(await ctx.db('app_pages').where({ id: w.outside }).first()).to.not.equal(undefined);
    expect((await client.post(`/admin/pages/${w.inside}/delete`, {}, `/admin/pages/${w.inside}/delete`)).status).to.equal(303);
    expect(await ctx.db('app_pages').where({ id: w.inside }).first()).to.equal(undefined);
  });
});

describe('the grants screen (/admin/pages/:id/permissions)', function () {
  this.timeout(60_000);
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  it('is linked from the editor’s properties and gives a role permissions on the section, with JavaScript off', async () => {
    const admin = await AdminClient.as(app, { role: 'admin' });
    const section = await createPage(ctx, { title: 'Rubrique' });
    const contributor = (await ctx.db('app_auth_roles').where({ name: 'contributor' }).first('id'))!.id;
    const editor = await admin.get(`/admin/pages/${section.id}`);
    expect(editor.text).to.include(`href="/admin/pages/${section.id}/permissions"`);

    const screen = await admin.get(`/admin/pages/${section.id}/permissions`);
    expect(screen.status).to.equal(200);
    expect(textOf(screen.text)).to.include('Aucun rôle n’a de permission propre à cette rubrique');
    const given = await admin.post(
      `/admin/pages/${section.id}/permissions`,
      { role_id: String(contributor), permissions: ['pages.manage', 'pages.publish'] },
      `/admin/pages/${section.id}/permissions`,
    );
    const after = await admin.follow(given);
    expect(textOf(after.text)).to.include('Permissions données').and.include('Contributeur').and.include('Publier les pages');
    expect(await ctx.db('app_page_grants').first()).to.deep.include({
      page_id: section.id,
      role_id: contributor,
      permissions: ['pages.manage', 'pages.publish'],
    });
    expect(await ctx.db('app_audit_events').where({ action: 'page.grant_added' }).count({ n: '*' }).first()).to.deep.equal({ n: 1 });
  });

  it('shows an inherited grant on a sub-page, refuses a grant without permission, and withdraws one', async () => {
    const admin = await AdminClient.as(app, { role: 'admin' });
    const section = await createPage(ctx, { title: 'Rubrique' });
    const child = await createPage(ctx, { title: 'Enfant', parent_id: section.id });
    const contributor = (await ctx.db('app_auth_roles').where({ name: 'contributor' }).first('id'))!.id;
    const grant = await grantOnPage(ctx, section.id, contributor, ['pages.manage'], null);
    const inherited = await admin.get(`/admin/pages/${child.id}/permissions`);
    expect(textOf(inherited.text)).to.include('Contributeur').and.include('(page parente)');
    expect(inherited.text).to.not.include(`/permissions/${grant.id}/delete`);

    const none = await admin.post(`/admin/pages/${section.id}/permissions`, { role_id: String(contributor) }, `/admin/pages/${section.id}/permissions`);
    expect(none.status).to.equal(400);
    expect(textOf(none.text)).to.include('Au moins une permission doit être choisie');

    const removed = await admin.post(`/admin/pages/${section.id}/permissions/${grant.id}/delete`, {}, `/admin/pages/${section.id}/permissions`);
    expect(textOf((await admin.follow(removed)).text)).to.include('Permissions retirées');
    expect(await ctx.db('app_page_grants').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    expect(await ctx.db('app_audit_events').where({ action: 'page.grant_removed' }).count({ n: '*' }).first()).to.deep.equal({ n: 1 });
  });

  it('shows the grants without the forms to a holder of roles.view alone, and refuses its posts', async () => {
    const reader = await caller(ctx, { permissions: ['admin.access', 'roles.view', 'pages.view'] });
    const client = new AdminClient(app, reader);
    const section = await createPage(ctx, { title: 'Rubrique' });
    const screen = await client.get(`/admin/pages/${section.id}/permissions`);
    expect(screen.status).to.equal(200);
    expect(screen.text).to.not.include('Donner ces permissions');
    const refused = await client.post(
      `/admin/pages/${section.id}/permissions`,
      { role_id: '1', permissions: 'pages.view' },
      `/admin/pages/${section.id}/permissions`,
    );
    expect(refused.status).to.equal(403);
    expect(await ctx.db('app_page_grants').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
  });
});
