// Presence (issue 23): POST /app/api/admin/pages/:id/presence is the editor's heartbeat,
// GET lists who else has the page open ({editors: [{id, name, since}]}, the asker left
// out); an editor is gone a minute after their last heartbeat, and `since` is when their
// continuous presence began. The application's clock is moved instead of waiting.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { AdminClient } from '../support/admin-client.js';
import { caller } from '../support/fixtures.js';
import { makePage } from './helpers.js';

const MANAGE = ['admin.access', 'pages.view', 'pages.manage'];
// 26 November 2026, 10 h 42 in Paris (UTC+1).
const START = Date.parse('2026-11-26T09:42:00Z');

describe('presence in the page editor (/app/api/admin/pages/:id/presence)', () => {
  let app: App;
  let ctx: AppContext;
  let now: number;
  let claire: Awaited<ReturnType<typeof caller>>;
  let paul: Awaited<ReturnType<typeof caller>>;

  const beat = (who: { cookie: string }, pageId: number | string) =>
    request(app).post(`/app/api/admin/pages/${pageId}/presence`).set('Cookie', who.cookie).send({});
  const list = (who: { cookie: string }, pageId: number | string) => request(app).get(`/app/api/admin/pages/${pageId}/presence`).set('Cookie', who.cookie);
  const rows = () => ctx.db('app_page_presence').orderBy(['page_id', 'user_id']);
  const later = (ms: number) => {
    now += ms;
  };

  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  after(async () => {
    ctx.clock.set();
    await closeTestApp(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    now = START;
    ctx.clock.set(() => now);
    claire = await caller(ctx, { name: 'Claire Martin', permissions: MANAGE });
    paul = await caller(ctx, { name: 'Paul Durand', permissions: MANAGE });
  });

  it('records a heartbeat and lists the others, never the asker, with when their presence began', async () => {
    const page = await makePage(ctx, { title: 'Horaires' });
    const first = await beat(claire, page.id);
    expect(first.status).to.equal(200);
    expect(first.body).to.deep.equal({ editors: [] });
    expect(await rows()).to.deep.equal([{ page_id: page.id, user_id: claire.id, since: new Date(START), seen_at: new Date(START) }]);

    later(5_000);
    expect((await beat(paul, page.id)).body.editors).to.deep.equal([
      { id: claire.id, name: 'Claire Martin', since: '2026-11-26T09:42:00.000Z', message: 'Claire Martin modifie cette page depuis 10\u00a0h\u00a042' },
    ]);
    const seenByClaire = await list(claire, page.id);
    expect(seenByClaire.status).to.equal(200);
    expect(seenByClaire.body.editors.map((editor: { name: string }) => editor.name)).to.deep.equal(['Paul Durand']);
    // Another page: nobody there.
    const other = await makePage(ctx, { title: 'Contact' });
    expect((await list(claire, other.id)).body).to.deep.equal({ editors: [] });
  });

  it('keeps `since` while heartbeats come within a minute; an editor is gone 60 s after the last one, and starts again after', async () => {
    const page = await makePage(ctx, { title: 'Horaires' });
    await beat(claire, page.id);
    later(20_000);
    await beat(claire, page.id);
    later(20_000);
    await beat(claire, page.id);
    const row = (await rows())[0];
    expect(row.since.toISOString()).to.equal(new Date(START).toISOString());
    expect(row.seen_at.toISOString()).to.equal(new Date(START + 40_000).toISOString());

    later(59_999);
    expect((await list(paul, page.id)).body.editors).to.have.length(1);
    later(1);
    expect((await list(paul, page.id)).body.editors).to.deep.equal([]);
    expect((await request(app).get('/app/api/admin/pages/presence').set('Cookie', paul.cookie)).body).to.deep.equal({ items: [] });

    // Back after the gap: a new continuous presence.
    later(10_000);
    await beat(claire, page.id);
    const back = (await list(paul, page.id)).body.editors;
    expect(back.map((editor: { since: string }) => editor.since)).to.deep.equal([new Date(now).toISOString()]);
  });

  it('also works when the row was left behind by another process: the timestamp set back in SQL makes the editor gone', async () => {
    ctx.clock.set();
    const page = await makePage(ctx, { title: 'Horaires' });
    await beat(claire, page.id);
    expect((await list(paul, page.id)).body.editors).to.have.length(1);
    await ctx.db('app_page_presence').update({ seen_at: ctx.db.raw("now() - interval '61 seconds'") });
    expect((await list(paul, page.id)).body.editors).to.deep.equal([]);
  });

  it('lists every page someone else has open, for the tree', async () => {
    const first = await makePage(ctx, { title: 'Horaires' });
    const second = await makePage(ctx, { title: 'Contact' });
    await beat(claire, first.id);
    await beat(paul, second.id);
    const answer = await request(app).get('/app/api/admin/pages/presence').set('Cookie', paul.cookie);
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({
      items: [
        {
          page_id: first.id,
          editors: [
            { id: claire.id, name: 'Claire Martin', since: '2026-11-26T09:42:00.000Z', message: 'Claire Martin modifie cette page depuis 10\u00a0h\u00a042' },
          ],
        },
      ],
    });
  });

  it('moving to another page leaves the first one a minute later, and the stale row is deleted', async () => {
    const first = await makePage(ctx, { title: 'Horaires' });
    const second = await makePage(ctx, { title: 'Contact' });
    await beat(claire, first.id);
    later(61_000);
    await beat(claire, second.id);
    expect((await rows()).map((row) => row.page_id)).to.deep.equal([second.id]);
  });

  it('refuses a heartbeat without pages.manage (403) and a list without pages.view, and writes nothing', async () => {
    const page = await makePage(ctx, { title: 'Horaires' });
    const reader = await caller(ctx, { permissions: ['admin.access', 'pages.view'] });
    const refused = await beat(reader, page.id);
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.be.a('string');
    expect(await rows()).to.deep.equal([]);
    // Reading who is there only needs pages.view.
    expect((await list(reader, page.id)).status).to.equal(200);
    const outsider = await caller(ctx, { permissions: ['admin.access'] });
    expect((await list(outsider, page.id)).status).to.equal(403);
    expect((await request(app).get(`/app/api/admin/pages/${page.id}/presence`)).status).to.equal(401);
  });

  it('answers 404 for an unknown page and 400 for an id that is not one, with a message, writing nothing', async () => {
    const missing = await beat(claire, 999_999);
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.equal('Page introuvable.');
    expect((await list(claire, 999_999)).status).to.equal(404);
    for (const bad of ['abc', '0', '-1', '1.5']) {
      const answer = await beat(claire, bad);
      expect(answer.status, bad).to.equal(400);
      expect(answer.body.error, bad).to.be.a('string').and.not.equal('');
    }
    const extra = await request(app).post('/app/api/admin/pages/1/presence').set('Cookie', claire.cookie).send({ since: 'now' });
    expect(extra.status).to.equal(400);
    expect(await rows()).to.deep.equal([]);
  });

  it('deletes the rows with the page', async () => {
    const page = await makePage(ctx, { title: 'Horaires' });
    await beat(claire, page.id);
    await ctx.db('app_pages').where({ id: page.id }).delete();
    expect(await rows()).to.deep.equal([]);
  });

  describe('on the screens (JavaScript off: what was true at load)', () => {
    it('shows «Claire Martin modifie cette page depuis 10 h 42» to Paul in the editor and the tree, never to Claire herself', async () => {
      const page = await makePage(ctx, { title: 'Horaires' });
      const claireTab = new AdminClient(app, claire);
      // Opening the editor is a heartbeat of its own.
      const own = await claireTab.get(`/admin/pages/${page.id}`);
      expect(own.status).to.equal(200);
      expect(own.text).to.not.include('modifie cette page');
      expect((await rows()).map((row) => row.user_id)).to.deep.equal([claire.id]);

      later(10_000);
      const paulTab = new AdminClient(app, paul);
      const editor = await paulTab.get(`/admin/pages/${page.id}`);
      expect(editor.text).to.match(/<p class="editor-presence small"[^>]*>Claire Martin modifie cette page depuis 10\u00a0h\u00a042<\/p>/);
      const tree = await paulTab.get('/admin/pages');
      expect(tree.text).to.match(new RegExp(`data-presence-page="${page.id}">Claire Martin modifie cette page depuis 10\u00a0h\u00a042<`));
      // Claire sees Paul, who opened the editor after her.
      expect((await claireTab.get(`/admin/pages/${page.id}`)).text).to.include('Paul Durand modifie cette page depuis 10\u00a0h\u00a042');
    });
  });
});
