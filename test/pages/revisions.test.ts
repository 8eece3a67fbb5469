import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import * as revisionsMigration from '../../migrations/pages/20261125000100_pages_revisions.js';
import * as retentionMigration from '../../migrations/pages/20261126001000_pages_revision_retention.js';
import * as reviewsMigration from '../../migrations/pages/20261129000200_pages_reviews.js';
import { saveDraft } from '../../models/pages/drafts.js';
import { pageMessages, revisionMessages } from '../../models/pages/messages.js';
import { duplicatePage } from '../../models/pages/pages.js';
import { listRevisions } from '../../models/pages/revisions.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { countStatements, makePage, storeRawPage, userWith, withoutIds } from './helpers.js';

describe('revisions (/app/api/admin/pages/:id/revisions)', () => {
  let app: App;
  let ctx: AppContext;
  let manager: { id: number; cookie: string };
  const get = (path: string, cookie = manager.cookie) => request(app).get(path).set('Cookie', cookie);
  const put = (path: string, body: object) => request(app).put(path).set('Cookie', manager.cookie).send(body);
  const post = (path: string, cookie = manager.cookie) => request(app).post(path).set('Cookie', cookie);
  const numbers = async (pageId: number) => (await ctx.db('app_page_revisions').where({ page_id: pageId }).orderBy('number')).map((row) => row.number);
  /** A page with three revisions: created (1), written live (2), a pending draft (3). */
  async function pageWithHistory(): Promise<number> {
    const created = await request(app).post('/app/api/admin/pages').set('Cookie', manager.cookie).send({ title: 'Version 1', slug: 'histoire' });
    await put(`/app/api/admin/pages/${created.body.id}`, { title: 'Version 2', blocks: [{ type: 'paragraph', text: 'Deux' }] });
    await put(`/app/api/admin/pages/${created.body.id}/draft`, { title: 'Version 3' });
    return created.body.id;
  }

  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    manager = await userWith(ctx, ['admin.access', 'pages.view', 'pages.manage', 'pages.publish']);
  });

  it('lists the revisions newest first with their time, author and state', async () => {
    const id = await pageWithHistory();
    const name = (await ctx.db('app_auth_users').where({ id: manager.id }).first())!.name;
    const res = await get(`/app/api/admin/pages/${id}/revisions`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ total: 3, limit: 50, offset: 0 });
    expect(res.body.items.map((item: { number: number; state: string }) => [item.number, item.state])).to.deep.equal([
      [3, 'draft'],
      [2, 'published'],
      [1, 'superseded'],
    ]);
    expect(res.body.items[0].author).to.deep.equal({ id: manager.id, name });
    expect(Object.keys(res.body.items[0])).to.have.members(['number', 'created_at', 'author', 'state']);
    expect(Number.isNaN(new Date(res.body.items[0].created_at).getTime())).to.equal(false);
    const paged = await get(`/app/api/admin/pages/${id}/revisions?limit=1&offset=1`);
    expect(paged.body).to.include({ total: 3, limit: 1, offset: 1 });
    expect(paged.body.items.map((item: { number: number }) => item.number)).to.deep.equal([2]);
    const past = await get(`/app/api/admin/pages/${id}/revisions?offset=10`);
    expect(past.body).to.deep.include({ items: [], total: 3 });
  });

  it('shows one revision with all its content fields', async () => {
    const id = await pageWithHistory();
    const res = await get(`/app/api/admin/pages/${id}/revisions/2`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ number: 2, state: 'published', page_id: id });
    expect(res.body.author.id).to.equal(manager.id);
    expect({ ...res.body.content, blocks: withoutIds(res.body.content.blocks) }).to.deep.include({
      title: 'Version 2',
      slug: 'histoire',
      parent_id: null,
      template: 'default',
      blocks: [{ type: 'paragraph', text: 'Deux' }],
      seo: {},
      visibility: 'public',
    });
    expect(res.body.content.created_at).to.be.a('string');
  });

  it('answers 404 for an unknown revision or page and 400 for a number that is not one', async () => {
    const id = await pageWithHistory();
    const missing = await get(`/app/api/admin/pages/${id}/revisions/99`);
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.equal(revisionMessages.revisionNotFound);
    expect((await get('/app/api/admin/pages/999/revisions')).body.error).to.equal(pageMessages.pageNotFound);
    expect((await get('/app/api/admin/pages/999/revisions/1')).status).to.equal(404);
    for (const bad of ['abc', '0', '1.5', '-1']) expect((await get(`/app/api/admin/pages/${id}/revisions/${bad}`)).status, bad).to.equal(400);
    expect((await get(`/app/api/admin/pages/${id}/revisions?limit=0`)).status).to.equal(400);
    expect((await post(`/app/api/admin/pages/${id}/revisions/99/restore`)).status).to.equal(404);
  });

  it('POST …/restore copies the revision into a new draft (201); the live page is unchanged', async () => {
    const id = await pageWithHistory();
    const res = await post(`/app/api/admin/pages/${id}/revisions/1/restore`);
    expect(res.status).to.equal(201);
    expect(res.body).to.deep.include({ id, title: 'Version 1', blocks: [], revision: 4, draft_revision: 4 });
    expect(await ctx.db('app_pages').where({ id }).first()).to.deep.include({ title: 'Version 2', revision: 4, draft_revision: 4, published_revision: 2 });
    expect(await numbers(id)).to.deep.equal([1, 2, 3, 4]);
    const states = (await get(`/app/api/admin/pages/${id}/revisions`)).body.items.map((item: { state: string }) => item.state);
    expect(states).to.deep.equal(['draft', 'superseded', 'published', 'superseded']);
    const [event] = await ctx.db('app_audit_events').where({ action: 'page.revision_restored' });
    expect(event).to.deep.include({ actor_id: manager.id, target_id: String(id), details: { from_revision: 1, revision: 4 } });
  });

  it('records a revision for every write of content: create, live write, draft, publish, restore, duplicate', async () => {
    const id = await pageWithHistory();
    expect((await post(`/app/api/admin/pages/${id}/publish`)).status).to.equal(200);
    await post(`/app/api/admin/pages/${id}/revisions/2/restore`);
    expect(await numbers(id)).to.deep.equal([1, 2, 3, 4, 5]);
    const rows = await ctx.db('app_page_revisions').where({ page_id: id }).orderBy('number');
    expect(rows.map((row) => row.title)).to.deep.equal(['Version 1', 'Version 2', 'Version 3', 'Version 3', 'Version 2']);
    const copy = await duplicatePage(ctx, id);
    expect(copy).to.include({ revision: 1, published_revision: 1 });
    expect(await numbers(copy.id)).to.deep.equal([1]);
  });

  it('a page stored without the model starts at revision 0; its first write records revision 1', async () => {
    const id = await storeRawPage(ctx, { title: 'Ancienne', slug: 'ancienne' });
    expect(await ctx.db('app_pages').where({ id }).first()).to.include({ revision: 0, published_revision: null });
    expect((await put(`/app/api/admin/pages/${id}`, { title: 'Reprise', if_revision: 0 })).status).to.equal(200);
    expect(await numbers(id)).to.deep.equal([1]);
  });

  it('keeps the history when the author’s account is deleted (author null) and drops it with the page', async () => {
    const id = await pageWithHistory();
    await ctx.db('app_auth_users').where({ id: manager.id }).delete();
    const admin = await userWith(ctx, 'admin');
    const res = await get(`/app/api/admin/pages/${id}/revisions`, admin.cookie);
    expect(res.body.items.map((item: { author: unknown }) => item.author)).to.deep.equal([null, null, null]);
    await request(app).delete(`/app/api/admin/pages/${id}`).set('Cookie', admin.cookie);
    expect(await numbers(id)).to.deep.equal([]);
  });

  it('lists a long history in the same two statements as a short one', async () => {
    const id = await pageWithHistory();
    const short = (await countStatements(ctx, () => listRevisions(ctx, id, { limit: 50 }))).count;
    for (let n = 0; n < 30; n++) await saveDraft(ctx, id, { title: `Essai ${n}` });
    const long = await countStatements(ctx, () => listRevisions(ctx, id, { limit: 50 }));
    expect(long.result.total).to.equal(33);
    expect(long.count).to.equal(short).and.equal(2);
  });

  it('the migration gives each existing page a revision 1 copied from its content', async () => {
    const page = await makePage(ctx, { title: 'Existante', slug: 'existante', blocks: [{ type: 'paragraph', text: 'Contenu' }] });
    // Down and up again in one transaction, rolled back: the test database keeps its schema.
    // The later migrations whose triggers read these columns go down first and up last.
    const rollback = new Error('rollback');
    await ctx.db
      .transaction(async (trx) => {
        await reviewsMigration.down(trx);
        await retentionMigration.down(trx);
        await revisionsMigration.down(trx);
        await revisionsMigration.up(trx);
        await retentionMigration.up(trx);
        await reviewsMigration.up(trx);
        const migrated = await trx('app_pages').where({ id: page.id }).first();
        expect(migrated).to.include({ revision: 1, published_revision: 1, draft_revision: null, scheduled_at: null });
        const rows = await trx('app_page_revisions').where({ page_id: page.id });
        expect(rows).to.have.length(1);
        expect({ ...rows[0], blocks: withoutIds(rows[0].blocks) }).to.deep.include({
          number: 1,
          title: 'Existante',
          slug: 'existante',
          blocks: [{ type: 'paragraph', text: 'Contenu' }],
        });
        const inserted = await trx('app_pages').insert({ title: 'Nouvelle', slug: 'nouvelle' }).returning(['revision', 'published_revision']);
        expect(inserted[0]).to.deep.equal({ revision: 0, published_revision: null });
        throw rollback;
      })
      .catch((error: unknown) => {
        if (error !== rollback) throw error;
      });
  });

  describe('permissions', () => {
    const routes: Array<[string, string, string, object?]> = [
      ['get', '/revisions', 'pages.view'],
      ['get', '/revisions/1', 'pages.view'],
      ['post', '/revisions/1/restore', 'pages.manage'],
      ['get', '/draft', 'pages.view'],
      ['put', '/draft', 'pages.manage', { title: 'X' }],
      ['post', '/publish', 'pages.publish'],
      ['delete', '/draft', 'pages.manage'],
      ['delete', '/schedule', 'pages.publish'],
    ];
    for (const [method, suffix, permission, body] of routes) {
      it(`${method.toUpperCase()} …/:id${suffix} answers 401 without a session, 403 without ${permission}`, async () => {
        const page = await makePage(ctx, { title: 'Une', slug: 'une' });
        await saveDraft(ctx, page.id, { title: 'Brouillon' });
        const call = (cookie?: string) => {
          const req = (request(app) as unknown as Record<string, (path: string) => request.Test>)[method](`/app/api/admin/pages/${page.id}${suffix}`);
          if (cookie) req.set('Cookie', cookie);
          return body ? req.send(body) : req;
        };
        expect((await call()).status).to.equal(401);
        const other = permission === 'pages.view' ? 'pages.manage' : 'pages.view';
        const denied = await call((await userWith(ctx, ['admin.access', other])).cookie);
        expect(denied.status).to.equal(403);
        expect((await call((await userWith(ctx, [permission])).cookie)).status).to.equal(403);
        const before = await ctx.db('app_pages').where({ id: page.id }).first();
        expect(before).to.include({ revision: 2, draft_revision: 2 });
        if (suffix === '/schedule')
          await ctx
            .db('app_pages')
            .where({ id: page.id })
            .update({ scheduled_at: new Date(Date.now() + 3_600_000) });
        const allowed = await call((await userWith(ctx, ['admin.access', permission])).cookie);
        expect(allowed.status).to.be.oneOf([200, 201, 204]);
      });
    }
  });
});
