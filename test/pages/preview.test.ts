// Preview links: POST /app/api/admin/pages/:id/preview-link makes a signed link (page,
// revision, expiry in 24 h) on the public site that shows that revision — the draft,
// or a private page's live content — to whoever holds it, with noindex and no-store,
// never kept by the public read cache; an expired link answers 410, a tampered one 403.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { saveDraft } from '../../models/pages/drafts.js';
import { createPreviewLink, PREVIEW_LIFETIME_MS, signPreview } from '../../models/pages/preview-links.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { assertFrenchTypography } from '../support/typography.js';
import { visibleText } from './site-text.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { countStatements, makeChain, makePage, userWith } from './helpers.js';

const NOW = Date.parse('2031-05-06T07:08:09.000Z');
const HOUR = 60 * 60 * 1000;

/** The headers every preview answer carries, page or refusal. */
function expectPrivateHeaders(res: request.Response, what: string): void {
  expect(res.headers['cache-control'], what).to.equal('no-store');
  expect(res.headers['x-robots-tag'], what).to.equal('noindex');
  expect(res.headers['referrer-policy'], what).to.equal('no-referrer');
  expect(res.text, what).to.include('<meta name="robots" content="noindex">');
  expect(res.text, what).to.not.include('rel="canonical"');
  assertFrenchTypography(visibleText(res.text), what);
}

describe('preview links', () => {
  let app: App;
  let ctx: AppContext;
  let editor: { id: number; cookie: string };
  before(() => {
    app = createTestApp({ BASE_URL: 'https://exemple.fr' });
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    ctx.clock.set(() => NOW);
    editor = await userWith(ctx, ['admin.access', 'pages.manage', 'pages.publish']);
  });

  /** A chain s1/s2 whose leaf is live with «Version en ligne» and has a draft with «Version brouillon». */
  async function pageWithDraft(): Promise<number> {
    const [, leaf] = await makeChain(ctx, 2, 's', { blocks: [{ type: 'paragraph', text: 'Version en ligne' }] });
    await saveDraft(ctx, leaf, { title: 'Titre du brouillon', blocks: [{ type: 'paragraph', text: 'Version **brouillon**' }] });
    return leaf;
  }

  function askLink(pageId: number | string, body: object = {}, cookie = editor.cookie) {
    return request(app).post(`/app/api/admin/pages/${pageId}/preview-link`).set('Cookie', cookie).send(body);
  }

  it('answers a signed link valid 24 hours that shows the draft, while the public URL shows the live page', async () => {
    const leaf = await pageWithDraft();
    const page = await ctx.db('app_pages').where({ id: leaf }).first();
    const res = await askLink(leaf);
    expect(res.status).to.equal(201);
    expect(res.body).to.have.all.keys('url', 'expires_at', 'revision');
    expect(res.body.revision).to.equal(page!.draft_revision);
    expect(res.body.expires_at).to.equal(new Date(NOW + PREVIEW_LIFETIME_MS).toISOString());
    expect(res.body.url).to.match(
      new RegExp(`^https://exemple\\.fr/_apercu/${leaf}\\.${page!.draft_revision}\\.${(NOW + PREVIEW_LIFETIME_MS) / 1000}\\.[A-Za-z0-9_-]{43}$`),
    );

    const preview = await request(app).get(new URL(res.body.url).pathname);
    expect(preview.status).to.equal(200);
    expectPrivateHeaders(preview, 'preview');
    expect(preview.text).to.include('Version <strong>brouillon</strong>').and.not.include('Version en ligne');
    expect(preview.text).to.include('<h1>Titre du brouillon</h1>');
    expect(preview.text)
      .to.include('<p class="preview-banner" role="status"><strong>Aperçu du brouillon</strong>')
      .and.include(`<a href="/admin/pages/${leaf}" class="preview-back">Retour à l’édition</a>`)
      .and.not.include('révision');
    // Placed where it lives: breadcrumbs and navigation as on the site.
    expect(preview.text).to.include('<li><a href="/s1">s1</a></li>');

    // Audited: who let the unpublished content out, and until when.
    const events = await ctx
      .db('app_audit_events')
      .where({ action: 'page.preview_link_created' })
      .select('actor_id', 'target_type', 'target_id', 'target_label', 'details');
    expect(events).to.deep.equal([
      {
        actor_id: editor.id,
        target_type: 'page',
        target_id: String(leaf),
        target_label: 's2',
        details: { revision: page!.draft_revision, expires_at: res.body.expires_at },
      },
    ]);

    const live = await request(app).get('/s1/s2');
    expect(live.status).to.equal(200);
    expect(live.text).to.include('Version en ligne').and.not.include('brouillon');
    expect(live.headers['cache-control']).to.match(/^public/);
  });

  it('is never stored in the public read cache: every opening reads the database', async () => {
    const leaf = await pageWithDraft();
    const { path } = await createPreviewLink(ctx, leaf);
    const entries = ctx.publicCache.stats.entries;
    for (let round = 0; round < 2; round++) {
      const { result, count } = await countStatements(ctx, () =>
        request(app)
          .get(path)
          .then((r) => r),
      );
      expect(result.status).to.equal(200);
      expect(count).to.be.greaterThan(0);
    }
    expect(ctx.publicCache.stats.entries).to.equal(entries);
  });

  it('shows a private page’s live content, which the site answers 404', async () => {
    const secret = await makePage(ctx, { title: 'Projet secret', visibility: 'private', blocks: [{ type: 'paragraph', text: 'Contenu réservé' }] });
    expect((await request(app).get('/projet-secret')).status).to.equal(404);
    const res = await askLink(secret.id);
    expect(res.status).to.equal(201);
    const preview = await request(app).get(new URL(res.body.url).pathname);
    expect(preview.status).to.equal(200);
    expectPrivateHeaders(preview, 'private preview');
    expect(preview.text).to.include('Contenu réservé').and.include('Aperçu de la version en ligne');
  });

  it('previews a given revision, and refuses one the page does not have (404), an unknown page (404), bad input (400)', async () => {
    const leaf = await pageWithDraft();
    const first = await askLink(leaf, { revision: 1 });
    expect(first.status).to.equal(201);
    const preview = await request(app).get(new URL(first.body.url).pathname);
    expect(preview.text).to.include('Version en ligne');
    expect((await askLink(leaf, { revision: 99 })).status).to.equal(404);
    expect((await askLink(999999)).status).to.equal(404);
    expect((await askLink(leaf, { revision: 'deux' })).status).to.equal(400);
    expect((await askLink(leaf, { revision: 1, expires: 'jamais' })).status).to.equal(400);
  });

  it('needs pages.manage: 401 without a session, 403 with pages.view only', async () => {
    const leaf = await pageWithDraft();
    expect((await request(app).post(`/app/api/admin/pages/${leaf}/preview-link`).send({})).status).to.equal(401);
    const viewer = await userWith(ctx, ['admin.access', 'pages.view']);
    expect((await askLink(leaf, {}, viewer.cookie)).status).to.equal(403);
  });

  it('answers 410 once expired (the injected clock 24 hours later), with the same headers', async () => {
    const leaf = await pageWithDraft();
    const { path } = await createPreviewLink(ctx, leaf);
    ctx.clock.set(() => NOW + PREVIEW_LIFETIME_MS - 1000);
    expect((await request(app).get(path)).status).to.equal(200);
    ctx.clock.set(() => NOW + PREVIEW_LIFETIME_MS);
    const expired = await request(app).get(path);
    expect(expired.status).to.equal(410);
    expectPrivateHeaders(expired, 'expired');
    expect(expired.text).to.include('Lien d’aperçu expiré').and.not.include('brouillon');
  });

  it('answers 403 to a tampered link: another page, revision or expiry, a changed or cut signature, another secret', async () => {
    const leaf = await pageWithDraft();
    const other = await makePage(ctx, { title: 'Autre', visibility: 'private' });
    const { path } = await createPreviewLink(ctx, leaf);
    const [pageId, revision, expires, signature] = path.slice('/_apercu/'.length).split('.');
    const flipped = signature[0] === 'A' ? 'B' + signature.slice(1) : 'A' + signature.slice(1);
    const forged = [
      `${other.id}.${revision}.${expires}.${signature}`,
      `${pageId}.${Number(revision) - 1}.${expires}.${signature}`,
      `${pageId}.${revision}.${Number(expires) + 10 * 24 * 3600}.${signature}`,
      `${pageId}.${revision}.${expires}.${flipped}`,
      `${pageId}.${revision}.${expires}.${signature.slice(0, 20)}`,
      `${pageId}.${revision}.${expires}`,
      signPreview('un-autre-secret-assez-long-pour-signer-0123456789', {
        pageId: leaf,
        revision: Number(revision),
        expiresAt: new Date(Number(expires) * 1000),
      }),
    ];
    for (const token of forged) {
      const res = await request(app).get(`/_apercu/${token}`);
      expect(res.status, token).to.equal(403);
      expectPrivateHeaders(res, token);
      expect(res.text, token).to.include('Lien d’aperçu non valide').and.not.include('brouillon');
    }
    // A forged expiry is refused as forged, even when it lies in the past.
    ctx.clock.set(() => NOW + 30 * 24 * HOUR);
    expect((await request(app).get(`/_apercu/${pageId}.${revision}.${Number(expires) - 60}.${signature}`)).status).to.equal(403);
  });

  it('answers 410 when the page is gone', async () => {
    const leaf = await pageWithDraft();
    const { path } = await createPreviewLink(ctx, leaf);
    await ctx.db('app_pages').where({ id: leaf }).delete();
    const res = await request(app).get(path);
    expect(res.status).to.equal(410);
    expect(res.text).to.include('Aperçu indisponible');
  });

  describe('revocation', () => {
    const generationOf = async (id: number) => (await ctx.db('app_pages').where({ id }).first('preview_generation'))!.preview_generation;
    const heldRevisions = (id: number) => ctx.db('app_page_revisions').where({ page_id: id }).whereNotNull('preview_until').pluck('number');
    const eventsOf = (id: number) =>
      ctx
        .db('app_audit_events')
        .where({ target_type: 'page', target_id: String(id) })
        .orderBy('id')
        .pluck('action');

    it('DELETE /app/api/admin/pages/:id/preview-links (204) voids every link of the page at once, releases its revisions, and is audited', async () => {
      const leaf = await pageWithDraft();
      const other = await pageWithDraft();
      const first = await askLink(leaf);
      const second = await askLink(leaf, { revision: 1 });
      const kept = await askLink(other);
      expect((await request(app).get(new URL(first.body.url).pathname)).status).to.equal(200);
      expect(await heldRevisions(leaf)).to.have.length(2);
      const revoked = await request(app).delete(`/app/api/admin/pages/${leaf}/preview-links`).set('Cookie', editor.cookie);
      expect(revoked.status).to.equal(204);
      for (const link of [first, second]) {
        const res = await request(app).get(new URL(link.body.url).pathname);
        expect(res.status).to.equal(410);
        expectPrivateHeaders(res, 'revoked');
        expect(res.text).to.include('Lien d’aperçu révoqué').and.not.include('brouillon');
      }
      // Another page's link is untouched; a link made after the revocation works.
      expect((await request(app).get(new URL(kept.body.url).pathname)).status).to.equal(200);
      expect((await request(app).get(new URL((await askLink(leaf)).body.url).pathname)).status).to.equal(200);
      expect(await generationOf(leaf)).to.equal(1);
      expect(await generationOf(other)).to.equal(0);
      expect(await heldRevisions(leaf)).to.deep.equal([(await ctx.db('app_pages').where({ id: leaf }).first())!.draft_revision]);
      const event = (await ctx.db('app_audit_events').where({ action: 'page.preview_links_revoked' }).first())!;
      expect(event).to.include({ actor_id: editor.id, target_type: 'page', target_id: String(leaf) });
      expect(event.details).to.deep.equal({ generation: 1, revisions_released: 2 });
      // Nothing to revoke on a page that does not exist.
      expect((await request(app).delete('/app/api/admin/pages/999999/preview-links').set('Cookie', editor.cookie)).status).to.equal(404);
    });

    it('voids the links of a page made private, from the API or by publishing a private draft', async () => {
      const leaf = await pageWithDraft();
      const link = await askLink(leaf);
      const made = await request(app).put(`/app/api/admin/pages/${leaf}`).set('Cookie', editor.cookie).send({ visibility: 'private' });
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      expect((await request(app).get(new URL(link.body.url).pathname)).status).to.equal(410);
      expect(await generationOf(leaf)).to.equal(1);
      expect(await heldRevisions(leaf)).to.deep.equal([]);
      // Still private: a new link (a private page's «Voir sur le site») works, and a save keeps it.
      const fresh = await askLink(leaf);
      await request(app).put(`/app/api/admin/pages/${leaf}`).set('Cookie', editor.cookie).send({ title: 'Autre titre' });
      expect((await request(app).get(new URL(fresh.body.url).pathname)).status).to.equal(200);
      const publicPage = await makePage(ctx, { title: 'Publique' });
      const before = await askLink(publicPage.id);
      await saveDraft(ctx, publicPage.id, { visibility: 'private' });
      expect((await request(app).post(`/app/api/admin/pages/${publicPage.id}/publish`).set('Cookie', editor.cookie)).status).to.equal(200);
      expect((await request(app).get(new URL(before.body.url).pathname)).status).to.equal(410);
    });

    it('voids the links of a deleted page (410)', async () => {
      const leaf = await makePage(ctx, { title: 'Éphémère', visibility: 'private' });
      const link = await askLink(leaf.id);
      expect((await request(app).delete(`/app/api/admin/pages/${leaf.id}`).set('Cookie', editor.cookie)).status).to.equal(204);
      const res = await request(app).get(new URL(link.body.url).pathname);
      expect(res.status).to.equal(410);
      expect(res.text).to.include('Aperçu indisponible');
    });

    it('gives the editor a «Révoquer les liens d’aperçu» button (CSRF form) that revokes them and says so', async () => {
      const leaf = await pageWithDraft();
      const link = await askLink(leaf);
      const client = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
      const editorPage = await client.get(`/admin/pages/${leaf}`);
      expect(editorPage.text).to.include(`action="/admin/pages/${leaf}/preview-links/revoke"`).and.include('Révoquer les liens d’aperçu');
      expect((await client.postRaw(`/admin/pages/${leaf}/preview-links/revoke`, {})).status).to.equal(403);
      expect(await generationOf(leaf)).to.equal(0);
      const revoked = await client.post(`/admin/pages/${leaf}/preview-links/revoke`, {}, `/admin/pages/${leaf}`);
      expect(revoked.status).to.equal(303);
      expect(revoked.headers.location).to.equal(`/admin/pages/${leaf}`);
      expect(textOf((await client.follow(revoked)).text)).to.include('Les liens d’aperçu de cette page sont révoqués');
      expect((await request(app).get(new URL(link.body.url).pathname)).status).to.equal(410);
      expect(await generationOf(leaf)).to.equal(1);
      expect(await eventsOf(leaf)).to.include('page.preview_links_revoked');
    });
  });
});
