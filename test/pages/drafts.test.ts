import { once } from 'node:events';
import { expect } from 'chai';
import pg from 'pg';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { getPublishedPageBySegments, listPublicChildPages } from '../../models/pages/public.js';
import { pageMessages, revisionMessages } from '../../models/pages/messages.js';
import { saveDraft } from '../../models/pages/drafts.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { countStatements, makePage, PNG_BYTES, userWith, withoutIds } from './helpers.js';

const paragraphs = (count: number) => Array.from({ length: count }, (_, index) => ({ type: 'paragraph', text: `Paragraphe ${index + 1}` }));

describe('drafts (/app/api/admin/pages/:id/draft, /publish)', () => {
  let app: App;
  let ctx: AppContext;
  let manager: { id: number; cookie: string };
  const put = (path: string, body: object) => request(app).put(path).set('Cookie', manager.cookie).send(body);
  const post = (path: string, body?: object) => {
    const req = request(app).post(path).set('Cookie', manager.cookie);
    return body ? req.send(body) : req;
  };
  const get = (path: string) => request(app).get(path).set('Cookie', manager.cookie);
  const del = (path: string) => request(app).delete(path).set('Cookie', manager.cookie);
  const live = async (id: number) => (await ctx.db('app_pages').where({ id }).first())!;
  const revisionCount = async (id: number) => Number((await ctx.db('app_page_revisions').where({ page_id: id }).count({ n: '*' }).first())?.n);

  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    manager = await userWith(ctx, ['admin.access', 'pages.view', 'pages.manage', 'pages.publish']);
  });

  it('PUT …/draft saves the patch on top of the live page as a new revision and leaves the live columns alone', async () => {
    const page = await makePage(ctx, { title: 'Accueil public', slug: 'bienvenue', blocks: [{ type: 'paragraph', text: 'En ligne' }] });
    const before = await live(page.id);
    const res = await put(`/app/api/admin/pages/${page.id}/draft`, { title: 'Accueil révisé', blocks: [{ type: 'paragraph', text: 'Brouillon' }] });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ id: page.id, title: 'Accueil révisé', slug: 'bienvenue', revision: 2, draft_revision: 2, author_id: manager.id });
    expect(withoutIds(res.body.blocks)).to.deep.equal([{ type: 'paragraph', text: 'Brouillon' }]);
    const after = await live(page.id);
    expect({ ...after, blocks: withoutIds(after.blocks) }).to.deep.include({
      title: 'Accueil public',
      blocks: [{ type: 'paragraph', text: 'En ligne' }],
      revision: 2,
      draft_revision: 2,
      published_revision: 1,
    });
    expect(after.updated_at.getTime()).to.equal(before.updated_at.getTime());
    const stored = await ctx.db('app_page_revisions').where({ page_id: page.id, number: 2 }).first();
    expect({ ...stored, blocks: withoutIds(stored!.blocks) }).to.deep.include({
      title: 'Accueil révisé',
      author_id: manager.id,
      blocks: [{ type: 'paragraph', text: 'Brouillon' }],
    });
    const shown = await get(`/app/api/admin/pages/${page.id}/draft`);
    expect(shown.status).to.equal(200);
    expect(shown.body).to.include({ title: 'Accueil révisé', revision: 2, draft_revision: 2 });
  });

  it('a second draft save patches the pending draft, not the live page', async () => {
    const page = await makePage(ctx, { title: 'Page', slug: 'page' });
    await put(`/app/api/admin/pages/${page.id}/draft`, { title: 'Titre du brouillon' });
    const res = await put(`/app/api/admin/pages/${page.id}/draft`, { seo: { description: 'Résumé' } });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ title: 'Titre du brouillon', seo: { description: 'Résumé' }, revision: 3, draft_revision: 3 });
    expect(await live(page.id)).to.include({ title: 'Page', draft_revision: 3 });
  });

  it('GET …/draft answers 404 without a draft; DELETE …/draft discards it (204) and the live page is untouched', async () => {
    const page = await makePage(ctx, { title: 'Page', slug: 'page' });
    const none = await get(`/app/api/admin/pages/${page.id}/draft`);
    expect(none.status).to.equal(404);
    expect(none.body).to.include({ code: 'not_found', error: revisionMessages.draftNotFound });
    expect((await del(`/app/api/admin/pages/${page.id}/draft`)).status).to.equal(404);
    await put(`/app/api/admin/pages/${page.id}/draft`, { title: 'Abandonné' });
    expect((await del(`/app/api/admin/pages/${page.id}/draft`)).status).to.equal(204);
    expect(await live(page.id)).to.include({ title: 'Page', draft_revision: null, revision: 2 });
    expect((await get(`/app/api/admin/pages/${page.id}/draft`)).status).to.equal(404);
    const event = await ctx.db('app_audit_events').where({ action: 'page.draft_discarded' }).first();
    expect(event).to.include({ actor_id: manager.id, target_id: String(page.id) });
  });

  it('POST …/publish makes the draft live as a new revision, clears it and records the event', async () => {
    const parent = await makePage(ctx, { title: 'Rubrique', slug: 'rubrique' });
    const page = await makePage(ctx, { title: 'Article', slug: 'article' });
    await put(`/app/api/admin/pages/${page.id}/draft`, { title: 'Article final', slug: 'final', parent_id: parent.id, blocks: paragraphs(2) });
    const res = await post(`/app/api/admin/pages/${page.id}/publish`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({
      id: page.id,
      title: 'Article final',
      slug: 'final',
      parent_id: parent.id,
      revision: 3,
      published_revision: 3,
      draft_revision: null,
    });
    const published = await live(page.id);
    expect({ ...published, blocks: withoutIds(published.blocks) }).to.deep.include({
      title: 'Article final',
      slug: 'final',
      parent_id: parent.id,
      blocks: paragraphs(2),
      updated_by: manager.id,
    });
    expect(await ctx.db('app_page_revisions').where({ page_id: page.id, number: 3 }).first()).to.include({ title: 'Article final', slug: 'final' });
    const event = await ctx.db('app_audit_events').where({ action: 'page.draft_published' }).first();
    expect(event).to.deep.include({ actor_id: manager.id, target_id: String(page.id) });
    expect(event!.details.fields).to.have.members(['title', 'slug', 'parent_id', 'blocks']);
    const again = await post(`/app/api/admin/pages/${page.id}/publish`);
    expect(again.status).to.equal(404);
    expect(again.body.error).to.equal(revisionMessages.draftNotFound);
  });

  it('the public reads, the site and the sitemap never show a draft, until it is published', async () => {
    const page = await makePage(ctx, { title: 'Public', slug: 'public', blocks: [{ type: 'paragraph', text: 'Version en ligne' }] });
    const hidden = await makePage(ctx, { title: 'Cachée', slug: 'cachee', visibility: 'private' });
    await put(`/app/api/admin/pages/${page.id}/draft`, { title: 'Titre secret', slug: 'secret', blocks: [{ type: 'paragraph', text: 'Texte secret' }] });
    await put(`/app/api/admin/pages/${hidden.id}/draft`, { visibility: 'public', title: 'Cachée publiée' });

    const byPath = await request(app).get('/app/api/pages/by-path?path=public');
    expect(byPath.status).to.equal(200);
    expect(byPath.body.title).to.equal('Public');
    expect(JSON.stringify(byPath.body)).not.to.include('secret');
    expect((await request(app).get('/app/api/pages/by-path?path=secret')).status).to.equal(404);
    expect((await request(app).get('/app/api/pages/by-path?path=cachee')).status).to.equal(404);
    const list = await request(app).get('/app/api/pages');
    expect(list.body.items.map((item: { title: string }) => item.title)).to.deep.equal(['Public']);
    const html = await request(app).get('/public');
    expect(html.status).to.equal(200);
    expect(html.text).to.include('Version en ligne').and.not.include('Texte secret').and.not.include('Titre secret');
    expect((await request(app).get('/secret')).status).to.equal(404);
    expect((await request(app).get('/cachee')).status).to.equal(404);
    const sitemap = await request(app).get('/sitemap-1.xml');
    expect(sitemap.text).to.include('/public').and.not.include('/secret').and.not.include('/cachee');
    expect((await getPublishedPageBySegments(ctx, ['public']))?.title).to.equal('Public');
    expect(await getPublishedPageBySegments(ctx, ['secret'])).to.equal(null);
    expect((await listPublicChildPages(ctx, null)).map((item) => item.title)).to.deep.equal(['Public']);

    expect((await post(`/app/api/admin/pages/${page.id}/publish`)).status).to.equal(200);
    const published = await request(app).get('/secret');
    expect(published.status).to.equal(200);
    expect(published.text).to.include('Texte secret');
  });

  it('a draft save sends no notification to the public cache; a live write does', async () => {
    const page = await makePage(ctx, { title: 'Cache', slug: 'cache' });
    const client = new pg.Client({ connectionString: ctx.config.databaseUrl });
    await client.connect();
    const heard: Array<{ tags?: string[] }> = [];
    let wake: () => void = () => {};
    client.on('notification', (message) => {
      heard.push(JSON.parse(message.payload ?? '{}'));
      wake();
    });
    try {
      await client.query('LISTEN site_public_changes');
      await put(`/app/api/admin/pages/${page.id}/draft`, { title: 'Brouillon', blocks: paragraphs(3) });
      await post(`/app/api/admin/pages/${page.id}/publish`, { at: new Date(ctx.clock.nowMs() + 3_600_000).toISOString() });
      await del(`/app/api/admin/pages/${page.id}/schedule`);
      // Notifications arrive in commit order: the live write's comes after any the draft sent.
      const liveHeard = new Promise<void>((resolve) => (wake = resolve));
      expect((await put(`/app/api/admin/pages/${page.id}`, { blocks: paragraphs(1) })).status).to.equal(200);
      await liveHeard;
      expect(heard).to.have.length(1);
      // A change of content only: the page's answers, not its place in the tree.
      expect(heard[0].tags).to.include(`page:${page.id}`).and.not.include(`tree:${page.id}`);
    } finally {
      await client.end();
    }
  });

  it('another application keeps its cached page across a draft save (no statement) and serves the draft once published', async () => {
    const reader = createTestApp();
    try {
      const b = contextOf(reader);
      const listening = async (context: AppContext) => {
        if (!context.publicCache.usable) await once(context.publicCache.events, 'listening', { signal: AbortSignal.timeout(10_000) });
      };
      await Promise.all([listening(ctx), listening(b)]);
      // Notifications arrive in commit order: once an empty one sent now is applied, every earlier one is.
      const settled = async () => {
        const seen = once(b.publicCache.events, 'change', { signal: AbortSignal.timeout(10_000) });
        await b.db.raw(`SELECT pg_notify('site_public_changes', '{}')`);
        await seen;
        // The change seen may be an earlier commit's: a round trip makes sure the empty one was handled.
        await b.publicCache.caughtUp();
      };
      const read = () =>
        countStatements(b, () =>
          request(reader)
            .get('/cache')
            .then((res) => res),
        );
      const page = await makePage(ctx, { title: 'En cache', slug: 'cache', blocks: [{ type: 'paragraph', text: 'Version en ligne' }] });
      await settled();
      await read();
      expect((await read()).count).to.equal(0);
      await put(`/app/api/admin/pages/${page.id}/draft`, { blocks: [{ type: 'paragraph', text: 'Version brouillon' }] });
      await settled();
      const kept = await read();
      expect(kept.count).to.equal(0);
      expect(kept.result.text).to.include('Version en ligne').and.not.include('Version brouillon');
      expect((await post(`/app/api/admin/pages/${page.id}/publish`)).status).to.equal(200);
      await settled();
      const fresh = await read();
      expect(fresh.count).to.be.greaterThan(0);
      expect(fresh.result.text).to.include('Version brouillon');
    } finally {
      await closeTestApp(reader);
    }
  });

  it('a publication that moves the page and a live move of it at the same time both go through (no deadlock)', async () => {
    const left = await makePage(ctx, { title: 'Gauche', slug: 'gauche' });
    const right = await makePage(ctx, { title: 'Droite', slug: 'droite' });
    const page = await makePage(ctx, { title: 'Mobile', slug: 'mobile' });
    for (let round = 0; round < 6; round++) {
      await put(`/app/api/admin/pages/${page.id}/draft`, { parent_id: round % 2 ? left.id : right.id });
      const [published, moved] = await Promise.all([
        post(`/app/api/admin/pages/${page.id}/publish`),
        put(`/app/api/admin/pages/${page.id}`, { parent_id: round % 2 ? right.id : left.id }),
      ]);
      expect([published.status, moved.status], `round ${round}`).to.deep.equal([200, 200]);
    }
    expect([left.id, right.id]).to.include((await live(page.id)).parent_id);
  });

  it('a media a pending draft shows cannot be deleted (409), so publishing it later cannot fail for it', async () => {
    const uploaded = await request(app).post('/app/api/admin/media').set('Cookie', manager.cookie).attach('file', PNG_BYTES, 'photo.png');
    expect(uploaded.status).to.equal(201);
    const page = await makePage(ctx, { title: 'Galerie', slug: 'galerie' });
    await put(`/app/api/admin/pages/${page.id}/draft`, { blocks: [{ type: 'image', media_id: uploaded.body.id }] });
    const refused = await del(`/app/api/admin/media/${uploaded.body.id}`);
    expect(refused.status).to.equal(409);
    expect(refused.body).to.include({ code: 'media_in_use', error: pageMessages.mediaInUse(1) });
    expect(await ctx.db('app_pages_media').where({ id: uploaded.body.id }).first()).to.not.equal(undefined);
    await del(`/app/api/admin/pages/${page.id}/draft`);
    expect((await del(`/app/api/admin/media/${uploaded.body.id}`)).status).to.equal(204);
  });

  describe('if_revision', () => {
    it('a stale if_revision answers 409 revision_conflict with the current content and writes nothing', async () => {
      const page = await makePage(ctx, { title: 'Page', slug: 'page' });
      await put(`/app/api/admin/pages/${page.id}/draft`, { title: 'Brouillon de A', if_revision: 1 });
      const count = await revisionCount(page.id);
      for (const [path, body] of [
        [`/app/api/admin/pages/${page.id}/draft`, { title: 'Brouillon de B', if_revision: 1 }],
        [`/app/api/admin/pages/${page.id}`, { title: 'Direct de B', if_revision: 1 }],
      ] as const) {
        const res = await put(path, body);
        expect(res.status).to.equal(409);
        expect(res.body).to.include({ code: 'revision_conflict', error: revisionMessages.conflict });
        expect(res.body.current).to.include({ id: page.id, title: 'Brouillon de A', revision: 2, state: 'draft' });
      }
      const stale = await post(`/app/api/admin/pages/${page.id}/publish`, { if_revision: 1 });
      expect(stale.status).to.equal(409);
      expect(await revisionCount(page.id)).to.equal(count);
      expect(await live(page.id)).to.include({ title: 'Page', revision: 2 });
      const fresh = await put(`/app/api/admin/pages/${page.id}`, { title: 'Direct', if_revision: 2 });
      expect(fresh.status).to.equal(200);
      // SPEC's clients send no if_revision: their writes keep working.
      expect((await put(`/app/api/admin/pages/${page.id}`, { title: 'Sans révision' })).status).to.equal(200);
    });

    it('of two writers based on the same revision, exactly one wins; the other gets the conflict', async () => {
      const page = await makePage(ctx, { title: 'Page', slug: 'page' });
      const results = await Promise.all([
        put(`/app/api/admin/pages/${page.id}/draft`, { title: 'Onglet 1', if_revision: 1 }),
        put(`/app/api/admin/pages/${page.id}/draft`, { title: 'Onglet 2', if_revision: 1 }),
      ]);
      expect(results.map((res) => res.status).sort()).to.deep.equal([200, 409]);
      const winner = results.find((res) => res.status === 200)!;
      const loser = results.find((res) => res.status === 409)!;
      expect(loser.body.current.title).to.equal(winner.body.title);
      expect(await revisionCount(page.id)).to.equal(2);
      expect((await live(page.id)).revision).to.equal(2);
    });

    it('refuses an if_revision that is not a whole number (400), writing nothing', async () => {
      const page = await makePage(ctx, { title: 'Page', slug: 'page' });
      const res = await put(`/app/api/admin/pages/${page.id}/draft`, { title: 'X', if_revision: 'deux' });
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('validation_error');
      expect(await revisionCount(page.id)).to.equal(1);
    });
  });

  describe('validation at the edge and in the model (400, French, nothing written)', () => {
    const cases: Array<[string, object, string]> = [
      ['an invalid slug', { slug: 'Pas Bon' }, pageMessages.slugInvalid],
      ['a blank title', { title: '  ' }, pageMessages.titleRequired],
      ['a reserved root slug', { slug: 'admin' }, pageMessages.slugReserved('admin')],
      ['a parent that does not exist', { parent_id: 9999 }, pageMessages.parentNotFound],
      ['an unknown template', { template: 'nope' }, pageMessages.templateUnknown('nope')],
      ['a created_at in the future', { created_at: '2999-01-01' }, pageMessages.createdAtFuture],
      ['an unknown field', { colour: 'bleu' }, 'Certaines valeurs envoyées'],
    ];
    for (const [what, body, message] of cases) {
      it(`refuses ${what}`, async () => {
        const page = await makePage(ctx, { title: 'Page', slug: 'page' });
        const res = await put(`/app/api/admin/pages/${page.id}/draft`, body);
        expect(res.status).to.equal(400);
        expect(res.body.error).to.include(message);
        expect(await revisionCount(page.id)).to.equal(1);
        expect((await live(page.id)).draft_revision).to.equal(null);
      });
    }

    it('refuses a draft that puts the page under its own sub-page', async () => {
      const page = await makePage(ctx, { title: 'Haut', slug: 'haut' });
      const child = await makePage(ctx, { title: 'Bas', slug: 'bas', parent_id: page.id });
      const res = await put(`/app/api/admin/pages/${page.id}/draft`, { parent_id: child.id });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal(pageMessages.cycle);
    });

    it('answers 404 for a page that does not exist, and 400 for an id that is not one', async () => {
      expect((await put('/app/api/admin/pages/999/draft', { title: 'X' })).status).to.equal(404);
      expect((await get('/app/api/admin/pages/999/draft')).body.error).to.equal(pageMessages.pageNotFound);
      expect((await put('/app/api/admin/pages/abc/draft', { title: 'X' })).status).to.equal(400);
    });
  });

  it('a draft save, and a live save, cost the same number of statements whatever the number of blocks', async () => {
    const page = await makePage(ctx, { title: 'Page', slug: 'page' });
    const draftCost = async (count: number) => (await countStatements(ctx, () => saveDraft(ctx, page.id, { blocks: paragraphs(count) }))).count;
    const liveCost = async (count: number) =>
      (await countStatements(ctx, () => put(`/app/api/admin/pages/${page.id}`, { blocks: paragraphs(count) }).then(() => undefined))).count;
    const draftSmall = await draftCost(1);
    expect(await draftCost(200)).to.equal(draftSmall);
    // The first write through the API reads the site's settings (the active theme's
    // catalog), kept in memory afterwards: measured once that is done.
    await liveCost(1);
    const liveSmall = await liveCost(1);
    expect(await liveCost(200)).to.equal(liveSmall);
    expect(await ctx.db('app_page_revisions').where({ page_id: page.id }).count({ n: '*' }).first()).to.deep.equal({ n: 6 });
  });
});
