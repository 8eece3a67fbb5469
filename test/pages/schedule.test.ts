import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { startBackgroundJobs } from '../../lib/modules.js';
import { pageState, saveDraft, schedulePublication } from '../../models/pages/drafts.js';
import { publishDuePages, startScheduledPublishing } from '../../services/scheduled-publishing.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { countStatements, makePage, userWith } from './helpers.js';
import { revisionMessages } from '../../models/pages/messages.js';

const T0 = Date.UTC(2030, 0, 15, 9, 0, 0);
const MINUTE = 60_000;

describe('pageState (the tree screen)', () => {
  it('says scheduled, then pending draft, then private, else published', () => {
    expect(pageState({ visibility: 'public', draft_revision: null, scheduled_at: null })).to.equal('published');
    expect(pageState({ visibility: 'private', draft_revision: null, scheduled_at: null })).to.equal('private');
    expect(pageState({ visibility: 'private', draft_revision: 3, scheduled_at: null })).to.equal('draft');
    expect(pageState({ visibility: 'public', draft_revision: 3, scheduled_at: new Date(T0) })).to.equal('scheduled');
  });
});

describe('scheduled publishing', () => {
  let app: App;
  let ctx: AppContext;
  let manager: { id: number; cookie: string };
  const post = (path: string, body?: object) => {
    const req = request(app).post(path).set('Cookie', manager.cookie);
    return body ? req.send(body) : req;
  };
  const live = async (id: number) => (await ctx.db('app_pages').where({ id }).first())!;
  const events = (action: string) => ctx.db('app_audit_events').where({ action }).orderBy('id');
  /** A public page with a pending draft titled `draftTitle`, scheduled at `at` by the manager. */
  async function scheduledPage(slug: string, draftTitle: string, at: number, context = ctx): Promise<number> {
    const page = await makePage(context, { title: `Titre en ligne ${slug}`, slug });
    await saveDraft(context, page.id, { title: draftTitle }, { id: manager.id, name: 'Gestionnaire', ip: null });
    await schedulePublication(context, page.id, new Date(at), { id: manager.id, name: 'Gestionnaire', ip: null });
    return page.id;
  }

  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    ctx.clock.set(() => T0);
    manager = await userWith(ctx, ['admin.access', 'pages.view', 'pages.manage', 'pages.publish']);
  });

  describe('POST …/publish with {at}, DELETE …/schedule', () => {
    it('schedules the draft (202 {scheduled_at}), shows it as scheduled and records page.scheduled', async () => {
      const page = await makePage(ctx, { title: 'Annonce', slug: 'annonce' });
      await saveDraft(ctx, page.id, { title: 'Annonce officielle' });
      const at = new Date(T0 + 30 * MINUTE).toISOString();
      const res = await post(`/app/api/admin/pages/${page.id}/publish`, { at });
      expect(res.status).to.equal(202);
      expect(res.body).to.deep.equal({ scheduled_at: at });
      expect(await live(page.id)).to.deep.include({ title: 'Annonce', scheduled_at: new Date(at), scheduled_by: manager.id, draft_revision: 2 });
      const draft = await request(app).get(`/app/api/admin/pages/${page.id}/draft`).set('Cookie', manager.cookie);
      expect(draft.body).to.include({ title: 'Annonce officielle', scheduled_at: at });
      const [event] = await events('page.scheduled');
      expect(event).to.deep.include({ actor_id: manager.id, target_id: String(page.id), details: { revision: 2, scheduled_at: at } });
      const revisions = await request(app).get(`/app/api/admin/pages/${page.id}/revisions`).set('Cookie', manager.cookie);
      expect(revisions.body.items.map((item: { state: string }) => item.state)).to.deep.equal(['scheduled', 'published']);
      // Not yet: the public page is the live one.
      expect((await request(app).get('/annonce')).text)
        .to.include('Annonce')
        .and.not.include('Annonce officielle');
    });

    const refusals: Array<[string, string, string]> = [
      ['a time in the past', new Date(T0 - MINUTE).toISOString(), revisionMessages.scheduleInPast],
      ['the present instant', new Date(T0).toISOString(), revisionMessages.scheduleInPast],
      ['a date without a time', '2030-02-01', revisionMessages.scheduleInvalid],
      ['a day that is not on the calendar', '2030-02-30T10:00:00Z', revisionMessages.scheduleInvalid],
      ['words', 'demain matin', revisionMessages.scheduleInvalid],
    ];
    for (const [what, at, message] of refusals) {
      it(`refuses ${what} with 400 and a message, scheduling nothing`, async () => {
        const page = await makePage(ctx, { title: 'Annonce', slug: 'annonce' });
        await saveDraft(ctx, page.id, { title: 'Annonce officielle' });
        const res = await post(`/app/api/admin/pages/${page.id}/publish`, { at });
        expect(res.status).to.equal(400);
        // The edge's refusals name the field in details; the model's (the clock) is the message itself.
        expect(res.body.details ?? [{ field: 'at', message: res.body.error }]).to.deep.include({ field: 'at', message });
        expect(await live(page.id)).to.include({ scheduled_at: null, draft_revision: 2, title: 'Annonce' });
      });
    }

    it('answers 404 when there is no draft to schedule, and 400 for a number as the time', async () => {
      const page = await makePage(ctx, { title: 'Annonce', slug: 'annonce' });
      const res = await post(`/app/api/admin/pages/${page.id}/publish`, { at: new Date(T0 + MINUTE).toISOString() });
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal(revisionMessages.draftNotFound);
      expect((await post(`/app/api/admin/pages/${page.id}/publish`, { at: T0 + MINUTE })).status).to.equal(400);
    });

    it('DELETE …/schedule cancels (204), keeps the draft, records it; a second cancel answers 404', async () => {
      const id = await scheduledPage('annonce', 'Annonce officielle', T0 + MINUTE);
      const res = await request(app).delete(`/app/api/admin/pages/${id}/schedule`).set('Cookie', manager.cookie);
      expect(res.status).to.equal(204);
      expect(await live(id)).to.include({ scheduled_at: null, scheduled_by: null, draft_revision: 2 });
      expect(await events('page.schedule_cancelled')).to.have.length(1);
      const again = await request(app).delete(`/app/api/admin/pages/${id}/schedule`).set('Cookie', manager.cookie);
      expect(again.status).to.equal(404);
      expect(again.body.error).to.equal(revisionMessages.scheduleNotFound);
      ctx.clock.set(() => T0 + 2 * MINUTE);
      expect(await publishDuePages(ctx)).to.deep.equal({ published: [], refused: [] });
      expect((await live(id)).title).to.equal('Titre en ligne annonce');
    });

    it('discarding a scheduled draft cancels its schedule', async () => {
      const id = await scheduledPage('annonce', 'Annonce officielle', T0 + MINUTE);
      expect((await request(app).delete(`/app/api/admin/pages/${id}/draft`).set('Cookie', manager.cookie)).status).to.equal(204);
      expect(await live(id)).to.include({ scheduled_at: null, draft_revision: null });
    });
  });

  describe('the scheduler', () => {
    it('publishes nothing before the time and the draft once it has come, by the hand of whoever scheduled it', async () => {
      const id = await scheduledPage('annonce', 'Annonce officielle', T0 + 10 * MINUTE);
      ctx.clock.set(() => T0 + 10 * MINUTE - 1);
      expect(await publishDuePages(ctx)).to.deep.equal({ published: [], refused: [] });
      ctx.clock.set(() => T0 + 10 * MINUTE);
      expect(await publishDuePages(ctx)).to.deep.equal({ published: [id], refused: [] });
      expect(await live(id)).to.include({
        title: 'Annonce officielle',
        draft_revision: null,
        scheduled_at: null,
        published_revision: 3,
        updated_by: manager.id,
      });
      const [event] = await events('page.scheduled_published');
      expect(event).to.deep.include({ actor_id: manager.id, ip: null, target_id: String(id) });
      expect((await request(app).get('/annonce')).text).to.include('Annonce officielle');
    });

    it('costs one statement a second while nothing is due (no transaction, no lock)', async () => {
      await scheduledPage('annonce', 'Annonce officielle', T0 + 10 * MINUTE);
      const idle = await countStatements(ctx, () => publishDuePages(ctx));
      expect(idle.result).to.deep.equal({ published: [], refused: [] });
      expect(idle.sql).to.have.length(1);
      expect(idle.sql[0]).to.match(/^select/i);
    });

    it('publishes each due page exactly once when two applications on one database claim at the same time', async () => {
      const other = createTestApp();
      try {
        const otherCtx = contextOf(other);
        const ids: number[] = [];
        for (let n = 1; n <= 12; n++) ids.push(await scheduledPage(`page-${n}`, `Brouillon ${n}`, T0 + n * 1000));
        ctx.clock.set(() => T0 + MINUTE);
        otherCtx.clock.set(() => T0 + MINUTE);
        const rounds = await Promise.all([1, 2, 3].flatMap(() => [publishDuePages(ctx, undefined, 5), publishDuePages(otherCtx, undefined, 5)]));
        // Batches of 5 per claim: a few more rounds drain what the first ones left.
        for (let round = 0; round < 4; round++) rounds.push(await publishDuePages(round % 2 ? ctx : otherCtx, undefined, 5));
        const published = rounds.flatMap((outcome) => outcome.published);
        expect([...published].sort((a, b) => a - b)).to.deep.equal(ids);
        expect(await events('page.scheduled_published')).to.have.length(12);
        const revisions = await ctx.db('app_page_revisions').whereIn('page_id', ids).count({ n: '*' }).first();
        expect(revisions?.n).to.equal(36);
        const pages = await ctx.db('app_pages').whereIn('id', ids).orderBy('id');
        expect(pages.map((page) => page.title)).to.deep.equal(ids.map((_, index) => `Brouillon ${index + 1}`));
      } finally {
        await closeTestApp(other);
      }
    });

    it('two running schedulers (background jobs of two applications) publish a due page once', async () => {
      const other = createTestApp();
      const stops: Array<() => void> = [];
      try {
        const otherCtx = contextOf(other);
        const id = await scheduledPage('annonce', 'Annonce officielle', T0 + MINUTE);
        stops.push(startScheduledPublishing(ctx, { intervalMs: 20 }), startScheduledPublishing(otherCtx, { intervalMs: 20 }));
        ctx.clock.set(() => T0 + MINUTE);
        otherCtx.clock.set(() => T0 + MINUTE);
        // Waits for the outcome (the test's own timeout bounds it), asserts no duration.
        while ((await live(id)).scheduled_at !== null) await new Promise((resolve) => setTimeout(resolve, 20));
        for (const stop of stops.splice(0)) stop();
        await Promise.all([ctx.background.settle(), otherCtx.background.settle()]);
        expect(await events('page.scheduled_published')).to.have.length(1);
        expect((await live(id)).title).to.equal('Annonce officielle');
      } finally {
        for (const stop of stops) stop();
        await closeTestApp(other);
      }
    });

    it('publishes at start a page that fell due while no server ran', async () => {
      const first = createTestApp();
      const firstCtx = contextOf(first);
      firstCtx.clock.set(() => T0);
      const id = await scheduledPage('annonce', 'Annonce officielle', T0 + 5 * MINUTE, firstCtx);
      await closeTestApp(first);
      // The next start, an hour later: the module's job runs its first check at once.
      const restarted = createTestApp();
      try {
        const restartedCtx = contextOf(restarted);
        restartedCtx.clock.set(() => T0 + 60 * MINUTE);
        expect(restartedCtx.site.backgroundJobs.map((job) => job.name)).to.include('scheduled publishing');
        const stop = startBackgroundJobs(restartedCtx);
        stop();
        await restartedCtx.background.settle();
        expect(await live(id)).to.include({ title: 'Annonce officielle', scheduled_at: null, draft_revision: null });
        expect(await events('page.scheduled_published')).to.have.length(1);
      } finally {
        await closeTestApp(restarted);
      }
    });

    it('drops the schedule of a draft the rules now refuse (its new parent is gone), keeps the draft and publishes the others', async () => {
      const parent = await makePage(ctx, { title: 'Rubrique', slug: 'rubrique' });
      const page = await makePage(ctx, { title: 'Article', slug: 'article' });
      await saveDraft(ctx, page.id, { parent_id: parent.id });
      await schedulePublication(ctx, page.id, new Date(T0 + MINUTE));
      const fine = await scheduledPage('autre', 'Autre brouillon', T0 + MINUTE);
      await ctx.db('app_pages').where({ id: parent.id }).delete();
      ctx.clock.set(() => T0 + 2 * MINUTE);
      const outcome = await publishDuePages(ctx);
      expect(outcome).to.deep.equal({ published: [fine], refused: [page.id] });
      expect(await live(page.id)).to.include({ parent_id: null, scheduled_at: null, draft_revision: 2 });
      expect((await live(fine)).title).to.equal('Autre brouillon');
    });
  });
});
