// The roles out of the box (issue 26) × what one does to pages, through the JSON API:
// Contributeur writes drafts of the pages it created and never publishes; Auteur also
// publishes its own pages; Éditeur and Administrateur act on every page. Each cell
// checks the status, then the database: a refusal wrote nothing, an answer did its work.
// Submitting for review (issue 26, item 5) is writing the page; approving and sending back
// are pages.review, which only Éditeur and Administrateur hold.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { saveDraft } from '../../models/pages/drafts.js';
import { createPage } from '../../models/pages/pages.js';
import { submitForReview } from '../../models/pages/reviews.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller, makeUser, type LoggedIn } from '../support/fixtures.js';
import type { User } from '../../models/auth/users.js';

type RoleName = 'contributor' | 'author' | 'editor' | 'admin';
const ROLES: RoleName[] = ['contributor', 'author', 'editor', 'admin'];

interface World {
  ctx: AppContext;
  me: User & LoggedIn;
  /** A page the caller created, with a pending draft. */
  own: number;
  /** A page someone else created, with a pending draft. */
  others: number;
  /** A root page to move pages under. */
  parent: number;
  /** Someone else's page whose draft is in review (issue 26, item 5). */
  inReview: number;
  /** The revision in review. */
  reviewRevision: number;
}

interface Action {
  method: 'post' | 'put' | 'delete';
  path(w: World): string;
  body?(w: World): object;
  /** Status per role. */
  expected: Record<RoleName, number>;
  /** What the database shows after the answer (`done`: whether it succeeded). */
  check(w: World, done: boolean, answer: request.Response): Promise<void>;
}

const row = async (w: World, id: number) => w.ctx.db('app_pages').where({ id }).first();
const OWN_ONLY = { contributor: 403, author: 403, editor: 0, admin: 0 };

const ACTIONS: Record<string, Action> = {
  'create (live)': {
    method: 'post',
    path: () => '/app/api/admin/pages',
    body: () => ({ title: 'Nouvelle en ligne' }),
    expected: { contributor: 403, author: 201, editor: 201, admin: 201 },
    async check(w, done) {
      const page = await w.ctx.db('app_pages').where({ title: 'Nouvelle en ligne' }).first();
      if (!done) return void expect(page).to.equal(undefined);
      expect(page).to.include({ author_id: w.me.id, published_revision: 1, visibility: 'public' });
    },
  },
  'create (draft)': {
    method: 'post',
    path: () => '/app/api/admin/pages',
    body: () => ({ title: 'Nouvelle en brouillon', publish: false }),
    expected: { contributor: 201, author: 201, editor: 201, admin: 201 },
    async check(w) {
      const page = await w.ctx.db('app_pages').where({ title: 'Nouvelle en brouillon' }).first();
      expect(page).to.include({ author_id: w.me.id, published_revision: null, draft_revision: 1 });
    },
  },
  'edit own (draft)': {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.own}/draft`,
    body: () => ({ title: 'Mon brouillon' }),
    expected: { contributor: 200, author: 200, editor: 200, admin: 200 },
    async check(w) {
      const page = (await row(w, w.own))!;
      expect(
        (await w.ctx
          .db('app_page_revisions')
          .where({ page_id: w.own, number: page.draft_revision as number })
          .first())!.title,
      ).to.equal('Mon brouillon');
      expect(page.title).to.equal('Sa page');
    },
  },
  "edit another's (draft)": {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.others}/draft`,
    body: () => ({ title: 'Pas à moi' }),
    expected: { ...OWN_ONLY, editor: 200, admin: 200 },
    async check(w, done, answer) {
      const titles = await w.ctx.db('app_page_revisions').where({ page_id: w.others }).pluck('title');
      expect(titles.includes('Pas à moi')).to.equal(done);
      if (!done) expect(answer.body.code).to.equal('not_owner');
    },
  },
  'edit own (live)': {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.own}`,
    body: () => ({ title: 'En ligne tout de suite' }),
    expected: { contributor: 403, author: 200, editor: 200, admin: 200 },
    async check(w, done, answer) {
      expect((await row(w, w.own))!.title).to.equal(done ? 'En ligne tout de suite' : 'Sa page');
      if (!done) expect(answer.body.code).to.equal('publish_forbidden');
    },
  },
  'publish own': {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.own}/publish`,
    expected: { contributor: 403, author: 200, editor: 200, admin: 200 },
    async check(w, done) {
      const page = (await row(w, w.own))!;
      expect(page.title).to.equal(done ? 'Brouillon de sa page' : 'Sa page');
      expect(page.draft_revision === null).to.equal(done);
    },
  },
  "publish another's": {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.others}/publish`,
    expected: { ...OWN_ONLY, editor: 200, admin: 200 },
    async check(w, done) {
      expect((await row(w, w.others))!.title).to.equal(done ? 'Brouillon de l’autre' : 'La page de l’autre');
    },
  },
  'schedule own': {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.own}/publish`,
    body: (w) => ({ at: new Date(w.ctx.clock.nowMs() + 3_600_000).toISOString() }),
    expected: { contributor: 403, author: 202, editor: 202, admin: 202 },
    async check(w, done) {
      expect((await row(w, w.own))!.scheduled_at !== null).to.equal(done);
    },
  },
  "schedule another's": {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.others}/publish`,
    body: (w) => ({ at: new Date(w.ctx.clock.nowMs() + 3_600_000).toISOString() }),
    expected: { ...OWN_ONLY, editor: 202, admin: 202 },
    async check(w, done) {
      expect((await row(w, w.others))!.scheduled_at !== null).to.equal(done);
    },
  },
  'submit own': {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.own}/review`,
    body: () => ({ comment: 'À relire' }),
    expected: { contributor: 202, author: 202, editor: 202, admin: 202 },
    async check(w) {
      expect(await w.ctx.db('app_page_reviews').where({ page_id: w.own }).first()).to.include({ state: 'in_review', submitted_by: w.me.id });
    },
  },
  "submit another's": {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.others}/review`,
    expected: { ...OWN_ONLY, editor: 202, admin: 202 },
    async check(w, done) {
      expect((await w.ctx.db('app_page_reviews').where({ page_id: w.others })).length).to.equal(done ? 1 : 0);
    },
  },
  approve: {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.inReview}/review/approve`,
    body: (w) => ({ revision: w.reviewRevision }),
    expected: { contributor: 403, author: 403, editor: 200, admin: 200 },
    async check(w, done) {
      expect((await w.ctx.db('app_page_reviews').where({ page_id: w.inReview }).first())!.state).to.equal(done ? 'approved' : 'in_review');
      expect((await row(w, w.inReview))!.title).to.equal(done ? 'Brouillon relu' : 'À relire');
    },
  },
  reject: {
    method: 'post',
    path: (w) => `/app/api/admin/pages/${w.inReview}/review/reject`,
    body: () => ({ comment: 'À reprendre' }),
    expected: { contributor: 403, author: 403, editor: 200, admin: 200 },
    async check(w, done) {
      expect((await w.ctx.db('app_page_reviews').where({ page_id: w.inReview }).first())!.state).to.equal(done ? 'rejected' : 'in_review');
      expect((await row(w, w.inReview))!.draft_revision).to.equal(w.reviewRevision);
    },
  },
  'move own': {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.own}`,
    body: (w) => ({ parent_id: w.parent }),
    expected: { contributor: 200, author: 200, editor: 200, admin: 200 },
    async check(w) {
      expect((await row(w, w.own))!.parent_id).to.equal(w.parent);
    },
  },
  "move another's": {
    method: 'put',
    path: (w) => `/app/api/admin/pages/${w.others}`,
    body: (w) => ({ parent_id: w.parent }),
    expected: { ...OWN_ONLY, editor: 200, admin: 200 },
    async check(w, done) {
      expect((await row(w, w.others))!.parent_id).to.equal(done ? w.parent : null);
    },
  },
  'delete own': {
    method: 'delete',
    path: (w) => `/app/api/admin/pages/${w.own}`,
    expected: { contributor: 204, author: 204, editor: 204, admin: 204 },
    async check(w) {
      expect(await row(w, w.own)).to.equal(undefined);
    },
  },
  "delete another's": {
    method: 'delete',
    path: (w) => `/app/api/admin/pages/${w.others}`,
    expected: { ...OWN_ONLY, editor: 204, admin: 204 },
    async check(w, done) {
      expect((await row(w, w.others)) === undefined).to.equal(done);
    },
  },
};

describe('teams: the built-in roles × page actions (/app/api/admin/pages)', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  async function world(role: RoleName): Promise<World> {
    const me = await caller(ctx, { role });
    const other = await makeUser(ctx);
    const actor = (user: User) => ({ id: user.id, name: user.name, ip: null });
    const own = (await createPage(ctx, { title: 'Sa page' }, actor(me))).id;
    const others = (await createPage(ctx, { title: 'La page de l’autre' }, actor(other))).id;
    const parent = (await createPage(ctx, { title: 'Rubrique' }, actor(other))).id;
    await saveDraft(ctx, own, { title: 'Brouillon de sa page' });
    await saveDraft(ctx, others, { title: 'Brouillon de l’autre' });
    const inReview = (await createPage(ctx, { title: 'À relire' }, actor(other))).id;
    await saveDraft(ctx, inReview, { title: 'Brouillon relu' });
    const { review } = await submitForReview(ctx, inReview, {}, actor(other));
    return { ctx, me, own, others, parent, inReview, reviewRevision: review.revision };
  }

  for (const [name, action] of Object.entries(ACTIONS)) {
    for (const role of ROLES) {
      const status = action.expected[role];
      it(`${role}: ${name} → ${status}`, async () => {
        const w = await world(role);
        let req = request(app)[action.method](action.path(w)).set('Cookie', w.me.cookie);
        if (action.body) req = req.send(action.body(w));
        const answer = await req;
        expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
        await action.check(w, status < 300, answer);
      });
    }
  }

  it('a Contributeur may not cancel a schedule, nor duplicate a page into a live copy (its copy is a draft)', async () => {
    const w = await world('contributor');
    await ctx
      .db('app_pages')
      .where({ id: w.own })
      .update({ scheduled_at: new Date(ctx.clock.nowMs() + 3_600_000) });
    const cancel = await request(app).delete(`/app/api/admin/pages/${w.own}/schedule`).set('Cookie', w.me.cookie);
    expect(cancel.status).to.equal(403);
    expect((await row(w, w.own))!.scheduled_at).to.not.equal(null);
    const copy = await request(app).post(`/app/api/admin/pages/${w.others}/duplicate`).set('Cookie', w.me.cookie);
    expect(copy.status).to.equal(201);
    expect(await row(w, copy.body.id)).to.include({ author_id: w.me.id, published_revision: null, draft_revision: 1, visibility: 'private' });
  });

  it('pages.manage without pages.publish: drafts, moves and deletes, never a live change', async () => {
    const writer = await caller(ctx, { permissions: ['admin.access', 'pages.view', 'pages.manage'] });
    const page = await createPage(ctx, { title: 'Commune' });
    await saveDraft(ctx, page.id, { title: 'Brouillon commun' });
    const send = (method: 'post' | 'put' | 'delete', path: string, body?: object) => {
      const req = request(app)[method](`/app/api/admin/pages${path}`).set('Cookie', writer.cookie);
      return body ? req.send(body) : req;
    };
    expect((await send('put', `/${page.id}/draft`, { title: 'Autre brouillon' })).status).to.equal(200);
    const live = await send('put', `/${page.id}`, { visibility: 'private' });
    expect(live.status).to.equal(403);
    expect(live.body.error).to.include('Publier les pages');
    expect((await send('post', `/${page.id}/publish`)).status).to.equal(403);
    expect((await send('post', '', { title: 'En ligne' })).body.code).to.equal('publish_forbidden');
    expect(await row({ ctx } as World, page.id)).to.include({ title: 'Commune', visibility: 'public' });
    expect((await send('delete', `/${page.id}`)).status).to.equal(204);
  });

  it('an Auteur deletes its own page with its sub-pages only when every sub-page is its own too', async () => {
    const w = await world('author');
    const other = await makeUser(ctx);
    const mine = (await createPage(ctx, { title: 'Ma sous-page', parent_id: w.own }, { id: w.me.id, name: w.me.name, ip: null })).id;
    const theirs = (await createPage(ctx, { title: 'Leur sous-page', parent_id: mine }, { id: other.id, name: other.name, ip: null })).id;
    const refused = await request(app).delete(`/app/api/admin/pages/${w.own}?cascade=true`).set('Cookie', w.me.cookie);
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('not_owner');
    expect(await ctx.db('app_pages').whereIn('id', [w.own, mine, theirs]).count({ n: '*' }).first()).to.deep.equal({ n: 3 });
    await ctx.db('app_pages').where({ id: theirs }).delete();
    const done = await request(app).delete(`/app/api/admin/pages/${w.own}?cascade=true`).set('Cookie', w.me.cookie);
    expect(done.status).to.equal(204);
    expect(await ctx.db('app_pages').whereIn('id', [w.own, mine]).count({ n: '*' }).first()).to.deep.equal({ n: 0 });
  });
});
