// Permissions per section of the tree (issue 26, item 4), through the JSON API: a role
// whose page permissions come only from a grant on one section («Rubrique») × what one
// does to pages, in and out of that section; then the grants' own rows (who may give
// them, what they may hold, the audit log) and the statements the check costs.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { saveDraft } from '../../models/pages/drafts.js';
import { grantOnPage } from '../../models/pages/grants.js';
import { createPage } from '../../models/pages/pages.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller } from '../support/fixtures.js';
import { siteLook } from '../../models/settings/store.js';
import { countStatements } from '../support/statements.js';
import { sectionWorld, type SectionWorld } from './section-world.js';

interface Action {
  method: 'get' | 'post' | 'put' | 'delete';
  path(w: SectionWorld): string;
  body?(w: SectionWorld): object;
  status: number;
  /** What the database shows after the answer. */
  check?(w: SectionWorld, answer: request.Response): Promise<void>;
}

const row = async (w: SectionWorld, id: number) => w.ctx.db('app_pages').where({ id }).first();
const draftTitle = async (w: SectionWorld, id: number) => {
  const page = (await row(w, id))!;
  return (
    await w.ctx
      .db('app_page_revisions')
      .where({ page_id: id, number: page.draft_revision as number })
      .first()
  )?.title;
};
const inAnHour = (w: SectionWorld) => new Date(w.ctx.clock.nowMs() + 3_600_000).toISOString();
const refusedOutside = (answer: request.Response) => void expect(answer.body.code).to.equal('outside_section');

const ACTIONS: Record<string, Action> = {
  'create in the section': {
    method: 'post',
    path: () => '/app/api/admin/pages',
    body: (w) => ({ title: 'Nouvelle dedans', parent_id: w.section }),
    status: 201,
    async check(w) {
      expect(await w.ctx.db('app_pages').where({ title: 'Nouvelle dedans' }).first()).to.include({
        parent_id: w.section,
        author_id: w.me.id,
        published_revision: 1,
      });
    },
  },
  'create out of the section': {
    method: 'post',
    path: () => '/app/api/admin/pages',
    body: (w) => ({ title: 'Nouvelle dehors', parent_id: w.outside }),
    status: 403,
    async check(w, answer) {
      refusedOutside(answer);
      expect(await w.ctx.db('app_pages').where({ title: 'Nouvelle dehors' }).first()).to.equal(undefined);
    },
  },
  'create a root page': {
    method: 'post',
    path: () => '/app/api/admin/pages',
    body: () => ({ title: 'Nouvelle racine', publish: false }),
    status: 403,
    async check(w, answer) {
      refusedOutside(answer);
      expect(answer.body.error).to.include('page parente');
      expect(await w.ctx.db('app_pages').where({ title: 'Nouvelle racine' }).first()).to.equal(undefined);
    },
  },
  'edit own in the section': {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.mineInside}/draft`,
    body: () => ({ title: 'Revue' }),
    status: 200,
    check: async (w) => void expect(await draftTitle(w, w.mineInside)).to.equal('Revue'),
  },
  'edit own out of the section': {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.mineOutside}/draft`,
    body: () => ({ title: 'Revue' }),
    status: 403,
    async check(w, answer) {
      refusedOutside(answer);
      expect(await draftTitle(w, w.mineOutside)).to.equal(`Brouillon ${w.mineOutside}`);
    },
  },
  "edit another's in the section": {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.inside}/draft`,
    body: () => ({ title: 'Revue' }),
    status: 200,
    check: async (w) => void expect(await draftTitle(w, w.inside)).to.equal('Revue'),
  },
  "edit another's out of the section": {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.outside}/draft`,
    body: () => ({ title: 'Revue' }),
    status: 403,
    check: async (w) => void expect(await draftTitle(w, w.outside)).to.equal(`Brouillon ${w.outside}`),
  },
  'edit live in the section': {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.inside}`,
    body: () => ({ title: 'En ligne' }),
    status: 200,
    check: async (w) => void expect((await row(w, w.inside))!.title).to.equal('En ligne'),
  },
  'publish in the section': {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.inside}/publish`,
    status: 200,
    check: async (w) => void expect(await row(w, w.inside)).to.include({ title: `Brouillon ${w.inside}`, draft_revision: null }),
  },
  'publish out of the section': {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.outside}/publish`,
    status: 403,
    check: async (w) => void expect(await row(w, w.outside)).to.include({ title: 'Dehors' }),
  },
  'schedule in the section': {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.inside}/publish`,
    body: (w) => ({ at: inAnHour(w) }),
    status: 202,
    check: async (w) => void expect((await row(w, w.inside))!.scheduled_at).to.not.equal(null),
  },
  'schedule out of the section': {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.outside}/publish`,
    body: (w) => ({ at: inAnHour(w) }),
    status: 403,
    check: async (w) => void expect((await row(w, w.outside))!.scheduled_at).to.equal(null),
  },
  'move within the section': {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.inside}`,
    body: (w) => ({ parent_id: w.mineInside }),
    status: 200,
    check: async (w) => void expect((await row(w, w.inside))!.parent_id).to.equal(w.mineInside),
  },
  'move out of the section': {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.inside}`,
    body: (w) => ({ parent_id: w.outside }),
    status: 403,
    async check(w, answer) {
      refusedOutside(answer);
      expect((await row(w, w.inside))!.parent_id).to.equal(w.section);
    },
  },
  'move to the root': {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.inside}`,
    body: () => ({ parent_id: null }),
    status: 403,
    check: async (w) => void expect((await row(w, w.inside))!.parent_id).to.equal(w.section),
  },
  'move a draft out of the section': {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.inside}/draft`,
    body: (w) => ({ parent_id: w.outside }),
    status: 403,
    check: async (w) => void expect(await draftTitle(w, w.inside)).to.equal(`Brouillon ${w.inside}`),
  },
  'move a page from outside into the section': {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.outside}`,
    body: (w) => ({ parent_id: w.section }),
    status: 403,
    check: async (w) => void expect((await row(w, w.outside))!.parent_id).to.equal(null),
  },
  'delete in the section': {
    method: 'delete',
    path: (w) => `/app/api/admin/pages/${w.inside}`,
    status: 204,
    check: async (w) => void expect(await row(w, w.inside)).to.equal(undefined),
  },
  'delete out of the section': {
    method: 'delete',
    path: (w) => `/app/api/admin/pages/${w.outside}`,
    status: 403,
    check: async (w) => void expect(await row(w, w.outside)).to.not.equal(undefined),
  },
  'duplicate in the section (the copy stays in it)': {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.inside}/duplicate`,
    status: 201,
    check: async (w, answer) => void expect(await row(w, answer.body.id)).to.include({ parent_id: w.section, author_id: w.me.id }),
  },
  'duplicate the section itself (the copy would be at the root)': {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.section}/duplicate`,
    status: 403,
    check: async (w) => void expect(await w.ctx.db('app_pages').count({ n: '*' }).first()).to.deep.equal({ n: 5 }),
  },
  'read in the section': { method: 'get', path: (w) => `/app/api/admin/pages/${w.inside}`, status: 200 },
  'read out of the section': {
    method: 'get',
    path: (w) => `/app/api/admin/pages/${w.outside}/draft`,
    status: 403,
    check: (_w, answer) => Promise.resolve(refusedOutside(answer)),
  },
};

describe('teams: a role with a grant on one section × page actions (/app/api/admin/pages)', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  for (const [name, action] of Object.entries(ACTIONS)) {
    it(`${name} → ${action.status}`, async () => {
      const w = await sectionWorld(ctx);
      let req = request(app)[action.method](action.path(w)).set('Cookie', w.me.cookie);
      if (action.body) req = req.send(action.body(w));
      const answer = await req;
      expect(answer.status, JSON.stringify(answer.body)).to.equal(action.status);
      await action.check?.(w, answer);
    });
  }

  it('lists only the pages of its sections', async () => {
    const w = await sectionWorld(ctx);
    const answer = await request(app).get('/app/api/admin/pages').set('Cookie', w.me.cookie);
    expect(answer.status).to.equal(200);
    expect(answer.body.items.map((page: { id: number }) => page.id).sort()).to.deep.equal([w.section, w.inside, w.mineInside].sort());
    expect(answer.body.total).to.equal(3);
  });

  it('a grant of pages.manage without pages.publish writes drafts there, never a live change', async () => {
    const w = await sectionWorld(ctx, ['pages.manage']);
    expect((await request(app).put(`/app/api/admin/pages/${w.inside}/draft`).set('Cookie', w.me.cookie).send({ title: 'Revue' })).status).to.equal(200);
    const publish = await request(app).post(`/app/api/admin/pages/${w.inside}/publish`).set('Cookie', w.me.cookie);
    expect(publish.status).to.equal(403);
    const live = await request(app).post('/app/api/admin/pages').set('Cookie', w.me.cookie).send({ title: 'En ligne', parent_id: w.section });
    expect(live.body.code).to.equal('publish_forbidden');
    const draft = await request(app)
      .post('/app/api/admin/pages')
      .set('Cookie', w.me.cookie)
      .send({ title: 'En brouillon', parent_id: w.section, publish: false });
    expect(draft.status).to.equal(201);
    expect(await row(w, w.inside)).to.include({ title: 'Dedans' });
  });

  it('a grant of pages.manage_own writes only the pages it created in the section', async () => {
    const w = await sectionWorld(ctx, ['pages.manage_own']);
    const mine = await request(app).put(`/app/api/admin/pages/${w.mineInside}/draft`).set('Cookie', w.me.cookie).send({ title: 'Revue' });
    expect(mine.status).to.equal(200);
    const theirs = await request(app).put(`/app/api/admin/pages/${w.inside}/draft`).set('Cookie', w.me.cookie).send({ title: 'Revue' });
    expect(theirs.status).to.equal(403);
    expect(theirs.body.code).to.equal('not_owner');
    expect(await draftTitle(w, w.inside)).to.equal(`Brouillon ${w.inside}`);
  });

  it('a grant adds to the site-wide permissions: an Auteur with a grant on a section publishes another’s page there, not elsewhere', async () => {
    const author = await caller(ctx, { role: 'author' });
    const w = await sectionWorld(ctx);
    await grantOnPage(ctx, w.section, (await ctx.db('app_auth_roles').where({ name: 'author' }).first('id'))!.id, ['pages.manage', 'pages.publish'], null);
    expect((await request(app).post(`/app/api/admin/pages/${w.inside}/publish`).set('Cookie', author.cookie)).status).to.equal(200);
    expect((await request(app).post(`/app/api/admin/pages/${w.outside}/publish`).set('Cookie', author.cookie)).status).to.equal(403);
    const all = await request(app).get('/app/api/admin/pages').set('Cookie', author.cookie);
    expect(all.body.total).to.equal(5); // pages.view site-wide: the whole tree
  });

  it('without any grant left, the role is refused at the guard (403 forbidden)', async () => {
    const w = await sectionWorld(ctx);
    await ctx.db('app_page_grants').delete();
    const answer = await request(app).get(`/app/api/admin/pages/${w.inside}`).set('Cookie', w.me.cookie);
    expect(answer.status).to.equal(403);
    expect(answer.body.code).to.equal('forbidden');
  });

  it('checks the section in one statement more than a site-wide editor, on every kind of row', async () => {
    const w = await sectionWorld(ctx);
    const editor = await caller(ctx, { role: 'editor' });
    const cases: Array<{ method: 'get' | 'put' | 'post'; path: string; body?: object }> = [
      { method: 'get', path: `/app/api/admin/pages/${w.inside}` },
      { method: 'get', path: `/app/api/admin/pages/${w.inside}/revisions` },
      { method: 'put', path: `/app/api/admin/pages/${w.inside}/draft`, body: { title: 'Un' } },
      { method: 'put', path: `/app/api/admin/pages/${w.inside}`, body: { parent_id: w.mineInside } },
      { method: 'post', path: `/app/api/admin/pages/${w.inside}/publish` },
      { method: 'post', path: '/app/api/admin/pages', body: { title: 'Nouvelle', parent_id: w.section } },
    ];
    for (const sample of cases) {
      const run = async (cookie: string) => {
        // A write made here drops the settings' copy: read it again before counting.
        await ctx.publicCache.ready();
        await siteLook(ctx);
        return countStatements(ctx, async () => {
          let req = request(app)[sample.method](sample.path).set('Cookie', cookie);
          if (sample.body) req = req.send(sample.body);
          const answer = await req;
          expect(answer.status, `${sample.method} ${sample.path}: ${JSON.stringify(answer.body)}`).to.be.below(300);
        });
      };
      await saveDraft(ctx, w.inside, { title: 'Deux' });
      const chief = await run(editor.cookie);
      if (sample.method === 'put' && sample.body && 'parent_id' in sample.body)
        await ctx.db('app_pages').where({ id: w.inside }).update({ parent_id: w.section });
      if (sample.method === 'post' && sample.path === '/app/api/admin/pages') await ctx.db('app_pages').where({ title: 'Nouvelle' }).delete();
      await saveDraft(ctx, w.inside, { title: 'Trois' });
      const granted = await run(w.me.cookie);
      expect(granted.count, `${sample.method} ${sample.path}\n${granted.sql.join('\n')}`).to.be.at.most(chief.count + 1);
    }
  });
});

describe('grants on a section: GET, POST, DELETE /app/api/admin/pages/:id/permissions', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const events = (action: string) => ctx.db('app_audit_events').where({ action }).orderBy('id');

  it('gives a role permissions on a page (201), lists them on the page and, inherited, on its sub-pages, and withdraws them (204), each in the audit log', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    const section = await createPage(ctx, { title: 'Rubrique' });
    const child = await createPage(ctx, { title: 'Enfant', parent_id: section.id });
    const contributor = (await ctx.db('app_auth_roles').where({ name: 'contributor' }).first('id'))!.id;

    const given = await request(app)
      .post(`/app/api/admin/pages/${section.id}/permissions`)
      .set('Cookie', admin.cookie)
      .send({ role_id: contributor, permissions: ['pages.publish', 'pages.manage'] });
    expect(given.status).to.equal(201);
    expect(given.body).to.deep.equal({ id: given.body.id, role_id: contributor, permissions: ['pages.manage', 'pages.publish'], inherited_from: null });
    expect(await ctx.db('app_page_grants').where({ id: given.body.id }).first()).to.include({
      page_id: section.id,
      role_id: contributor,
      created_by: admin.id,
    });

    const onSection = await request(app).get(`/app/api/admin/pages/${section.id}/permissions`).set('Cookie', admin.cookie);
    expect(onSection.body).to.deep.equal({ items: [given.body] });
    const onChild = await request(app).get(`/app/api/admin/pages/${child.id}/permissions`).set('Cookie', admin.cookie);
    expect(onChild.body.items).to.deep.equal([{ ...given.body, inherited_from: section.id }]);

    const again = await request(app)
      .post(`/app/api/admin/pages/${section.id}/permissions`)
      .set('Cookie', admin.cookie)
      .send({ role_id: contributor, permissions: ['pages.view'] });
    expect(again.status).to.equal(201);
    expect(again.body.id).to.equal(given.body.id);
    expect(await ctx.db('app_page_grants').pluck('permissions')).to.deep.equal([['pages.view']]);

    const fromChild = await request(app).delete(`/app/api/admin/pages/${child.id}/permissions/${given.body.id}`).set('Cookie', admin.cookie);
    expect(fromChild.status).to.equal(404);
    const withdrawn = await request(app).delete(`/app/api/admin/pages/${section.id}/permissions/${given.body.id}`).set('Cookie', admin.cookie);
    expect(withdrawn.status).to.equal(204);
    expect(await ctx.db('app_page_grants').count({ n: '*' }).first()).to.deep.equal({ n: 0 });

    const added = await events('page.grant_added');
    expect(added).to.have.length(2);
    expect(added[0]).to.include({ actor_id: admin.id, target_type: 'page', target_id: String(section.id), target_label: 'Rubrique' });
    expect(added[0].details).to.include({ role_id: contributor, role: 'Contributeur' });
    expect(added[0].details.permissions).to.deep.equal(['pages.manage', 'pages.publish']);
    const removed = await events('page.grant_removed');
    expect(removed).to.have.length(1);
    expect(removed[0].details).to.deep.include({ grant_id: given.body.id, permissions: ['pages.view'] });
  });

  it('refuses what a grant may not hold, the admin role, an unknown role or page, and writes nothing', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    const page = await createPage(ctx, { title: 'Rubrique' });
    const editor = (await ctx.db('app_auth_roles').where({ name: 'editor' }).first('id'))!.id;
    const adminRole = (await ctx.db('app_auth_roles').where({ name: 'admin' }).first('id'))!.id;
    const post = (id: number, body: object) => request(app).post(`/app/api/admin/pages/${id}/permissions`).set('Cookie', admin.cookie).send(body);
    const notPages = await post(page.id, { role_id: editor, permissions: ['users.manage'] });
    expect(notPages.status).to.equal(400);
    expect(notPages.body.code).to.equal('invalid_permissions');
    expect((await post(page.id, { role_id: adminRole, permissions: ['pages.view'] })).body.code).to.equal('admin_role');
    expect((await post(page.id, { role_id: 999999, permissions: ['pages.view'] })).status).to.equal(400);
    expect((await post(999999, { role_id: editor, permissions: ['pages.view'] })).status).to.equal(404);
    expect(await ctx.db('app_page_grants').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    expect(await events('page.grant_added')).to.have.length(0);
  });

  it('a role manager gives only what it holds site-wide (403 escalation), and reading needs roles.view', async () => {
    const manager = await caller(ctx, { permissions: ['admin.access', 'roles.view', 'roles.manage', 'pages.view', 'pages.manage'] });
    const page = await createPage(ctx, { title: 'Rubrique' });
    const editor = (await ctx.db('app_auth_roles').where({ name: 'editor' }).first('id'))!.id;
    const refused = await request(app)
      .post(`/app/api/admin/pages/${page.id}/permissions`)
      .set('Cookie', manager.cookie)
      .send({ role_id: editor, permissions: ['pages.manage', 'pages.publish'] });
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('escalation');
    expect(refused.body.error).to.include('pages.publish');
    expect(await ctx.db('app_page_grants').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    const given = await request(app)
      .post(`/app/api/admin/pages/${page.id}/permissions`)
      .set('Cookie', manager.cookie)
      .send({ role_id: editor, permissions: ['pages.manage'] });
    expect(given.status).to.equal(201);
    const pagesOnly = await caller(ctx, { permissions: ['admin.access', 'pages.view', 'pages.manage'] });
    expect((await request(app).get(`/app/api/admin/pages/${page.id}/permissions`).set('Cookie', pagesOnly.cookie)).status).to.equal(403);
  });

  it('the grants go with their page and with their role', async () => {
    const page = await createPage(ctx, { title: 'Rubrique' });
    const child = await createPage(ctx, { title: 'Enfant', parent_id: page.id });
    const editor = (await ctx.db('app_auth_roles').where({ name: 'editor' }).first('id'))!.id;
    const author = (await ctx.db('app_auth_roles').where({ name: 'author' }).first('id'))!.id;
    await grantOnPage(ctx, child.id, editor, ['pages.view'], null);
    await grantOnPage(ctx, page.id, author, ['pages.view'], null);
    await ctx.db('app_pages').where({ id: child.id }).delete();
    expect(await ctx.db('app_page_grants').pluck('role_id')).to.deep.equal([author]);
    await ctx.db('app_auth_roles').where({ id: author }).delete();
    expect(await ctx.db('app_page_grants').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
  });
});
