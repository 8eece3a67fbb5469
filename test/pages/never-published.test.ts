// New pages are drafts until first published: «Nouvelle page» creates a page that is not
// on the site (state «Jamais publiée») until «Publier»; the JSON API creates a live page
// unless told `"publish": false`.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { publishDraft, schedulePublication } from '../../models/pages/drafts.js';
import { revisionMessages } from '../../models/pages/messages.js';
import { createPage } from '../../models/pages/pages.js';
import { publishDuePages } from '../../services/scheduled-publishing.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { formFields, setField, submitEditor } from './editor-form.js';
import { listening, makePage, notified, settled, userWith, withoutIds } from './helpers.js';

const T0 = Date.UTC(2030, 0, 15, 9, 0, 0);
const MINUTE = 60_000;

/** What the public surfaces show of the page at `/<slug>` under the root. */
async function publicFacts(app: App, slug: string) {
  const [site, byPath, children, sitemap, home] = await Promise.all([
    request(app).get(`/${slug}`),
    request(app).get(`/app/api/pages/by-path?path=${slug}`),
    request(app).get('/app/api/pages'),
    request(app).get('/sitemap-1.xml'),
    request(app).get('/'),
  ]);
  return {
    site: site.status,
    byPath: byPath.status,
    listed: (children.body.items as Array<{ slug: string }>).some((item) => item.slug === slug),
    sitemap: sitemap.text.includes(`/${slug}</loc>`),
    navigation: home.text.includes(`href="/${slug}"`),
  };
}

const offline = { site: 404, byPath: 404, listed: false, sitemap: false, navigation: false };
const online = { site: 200, byPath: 200, listed: true, sitemap: true, navigation: true };

describe('never-published pages', () => {
  let app: App;
  let ctx: AppContext;
  let manager: { id: number; cookie: string };
  const live = async (id: number) => (await ctx.db('app_pages').where({ id }).first())!;

  before(async () => {
    app = createTestApp();
    ctx = contextOf(app);
    await listening(ctx);
  });
  beforeEach(async () => {
    await resetData(ctx);
    manager = await userWith(ctx, ['admin.access', 'pages.view', 'pages.manage', 'pages.publish']);
    await makePage(ctx, { title: 'Accueil', slug: 'accueil' });
  });

  describe('POST /app/api/admin/pages', () => {
    it('creates a live page as SPEC says when `publish` is absent', async () => {
      const res = await request(app).post('/app/api/admin/pages').set('Cookie', manager.cookie).send({ title: 'Contact' });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ visibility: 'public', revision: 1, published_revision: 1, draft_revision: null });
      expect(await live(res.body.id)).to.include({ visibility: 'public', published_revision: 1 });
      expect(await publicFacts(app, 'contact')).to.deep.equal(online);
    });

    it('with "publish": false creates a page off the site whose content is its draft, revision 1', async () => {
      const res = await request(app)
        .post('/app/api/admin/pages')
        .set('Cookie', manager.cookie)
        .send({ title: 'Contact', blocks: [{ type: 'paragraph', text: 'Écrivez-nous' }], publish: false });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ title: 'Contact', revision: 1, published_revision: null, draft_revision: 1, visibility: 'private' });
      expect(await live(res.body.id)).to.include({ visibility: 'private', published_revision: null, draft_revision: 1 });
      const revision = await ctx.db('app_page_revisions').where({ page_id: res.body.id, number: 1 }).first();
      expect({ ...revision, blocks: withoutIds(revision!.blocks) }).to.deep.include({
        visibility: 'public',
        published: false,
        blocks: [{ type: 'paragraph', text: 'Écrivez-nous' }],
      });
      const draft = await request(app).get(`/app/api/admin/pages/${res.body.id}/draft`).set('Cookie', manager.cookie);
      expect(draft.status).to.equal(200);
      expect(draft.body).to.include({ visibility: 'public', draft_revision: 1 });
      expect(await publicFacts(app, 'contact')).to.deep.equal(offline);
      const [event] = await ctx.db('app_audit_events').where({ action: 'page.created', target_id: String(res.body.id) });
      expect(event.details).to.deep.include({ published: false, visibility: 'public' });
    });

    it('refuses a "publish" that is not a boolean', async () => {
      const res = await request(app).post('/app/api/admin/pages').set('Cookie', manager.cookie).send({ title: 'Contact', publish: 'non' });
      expect(res.status).to.equal(400);
      expect(await ctx.db('app_pages').where({ title: 'Contact' })).to.have.length(0);
    });
  });

  describe('«Nouvelle page» and «Publier» in the administration', () => {
    it('creates a page shown «Jamais publiée» in the tree and the editor, off the site until «Publier»', async () => {
      const client = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
      const created = await client.post(
        '/admin/pages',
        { title: 'Contact', slug: '', parent_id: '', template: 'default', visibility: 'public' },
        '/admin/pages/new',
      );
      expect(created.status).to.equal(303);
      const row = (await ctx.db('app_pages').where({ slug: 'contact' }).first())!;
      expect(row).to.include({ visibility: 'private', published_revision: null, draft_revision: 1 });
      expect(await publicFacts(app, 'contact')).to.deep.equal(offline);

      const tree = textOf((await client.get('/admin/pages')).text);
      expect(tree).to.match(/Contact\s+\/contact\s+Jamais publiée\s+Modifiée/);
      const editor = await client.get(`/admin/pages/${row.id}`);
      expect(textOf(editor.text)).to.include('Jamais publiée').and.include('Cette page n’a jamais été publiée').and.not.include('Abandonner le brouillon');

      const published = await submitEditor(client, row.id, setField(formFields(editor.text), 'title', 'Nous écrire'), 'publish');
      expect(published.status).to.equal(303);
      expect(await live(row.id)).to.include({ title: 'Nous écrire', visibility: 'public', published_revision: 3, draft_revision: null });
      expect(await publicFacts(app, 'contact')).to.deep.equal(online);
      expect(textOf((await client.get('/admin/pages')).text)).to.match(/Nous écrire\s+\/contact\s+En ligne/);
    });

    it('refuses to discard the draft of a never-published page (it is all the page has)', async () => {
      const page = await createPage(ctx, { title: 'Contact' }, null, undefined, { publish: false });
      const res = await request(app).delete(`/app/api/admin/pages/${page.id}/draft`).set('Cookie', manager.cookie);
      expect(res.status).to.equal(409);
      expect(res.body).to.include({ code: 'never_published', error: revisionMessages.neverPublishedDiscard });
      expect(await live(page.id)).to.include({ draft_revision: 1, published_revision: null });
    });

    it('duplicates a never-published page as a never-published copy of its draft', async () => {
      const page = await createPage(ctx, { title: 'Contact' }, null, undefined, { publish: false });
      await request(app).put(`/app/api/admin/pages/${page.id}/draft`).set('Cookie', manager.cookie).send({ title: 'Nous écrire' }).expect(200);
      const res = await request(app).post(`/app/api/admin/pages/${page.id}/duplicate`).set('Cookie', manager.cookie);
      expect(res.status).to.equal(201);
      expect(await live(res.body.id)).to.include({ title: 'Nous écrire (copie)', visibility: 'private', published_revision: null, draft_revision: 1 });
      const revision = await ctx.db('app_page_revisions').where({ page_id: res.body.id, number: 1 }).first();
      expect(revision).to.include({ title: 'Nous écrire (copie)', visibility: 'public' });
    });
  });

  it('a scheduled publication puts a never-published page on the site at its time', async () => {
    ctx.clock.set(() => T0);
    const page = await createPage(ctx, { title: 'Annonce' }, null, undefined, { publish: false });
    await schedulePublication(ctx, page.id, new Date(T0 + 10 * MINUTE));
    expect(await publicFacts(app, 'annonce')).to.deep.equal(offline);
    ctx.clock.set(() => T0 + 10 * MINUTE);
    expect(await publishDuePages(ctx)).to.deep.equal({ published: [page.id], refused: [] });
    expect(await live(page.id)).to.include({ visibility: 'public', published_revision: 2, draft_revision: null, scheduled_at: null });
    expect(await publicFacts(app, 'annonce')).to.deep.equal(online);
  });

  after(() => closeTestApp(app));
});

describe('a never-published page’s publication in another application’s read cache', () => {
  let appA: App;
  let appB: App;
  let a: AppContext;
  let b: AppContext;
  before(async () => {
    appA = createTestApp();
    appB = createTestApp();
    a = contextOf(appA);
    b = contextOf(appB);
    await Promise.all([listening(a), listening(b)]);
  });
  after(async () => {
    await closeTestApp(appA);
    await closeTestApp(appB);
  });

  it('drops B’s cached child list, navigation, sitemap and unknown path once A publishes it', async () => {
    await notified(b, () => resetData(a));
    await makePage(a, { title: 'Accueil', slug: 'accueil' });
    const page = await createPage(a, { title: 'Contact' }, null, undefined, { publish: false });
    await settled(b);
    // Twice: the second read is B's cache answering.
    expect(await publicFacts(appB, 'contact')).to.deep.equal(offline);
    expect(await publicFacts(appB, 'contact')).to.deep.equal(offline);
    await notified(b, () => publishDraft(a, page.id));
    expect(await publicFacts(appB, 'contact')).to.deep.equal(online);
  });
});
