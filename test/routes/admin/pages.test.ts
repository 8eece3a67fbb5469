// The pages module's admin screens: tree, page form, block editor without JavaScript,
// duplicate, delete with the children rule, media library.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { createPage, getPage } from '../../../models/pages/pages.js';
import { insertMedia } from '../../../models/pages/media.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { PNG_1X1 } from '../../support/fixtures.js';
import { AdminClient, textOf } from '../../support/admin-client.js';

describe('/admin pages screens', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const editor = () => AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage'] });
  const reader = () => AdminClient.as(app, { permissions: ['admin.access', 'pages.view'] });
  const version = async (id: number) => new Date((await getPage(ctx, id)).updated_at).toISOString();

  describe('tree', () => {
    it('shows the root pages, opens one with its path expanded, lists a visibility filter with paths; refused without pages.view', async () => {
      const root = await createPage(ctx, { title: 'Racine' });
      const child = await createPage(ctx, { title: 'Enfant', parent_id: root.id, visibility: 'private' });
      const grandchild = await createPage(ctx, { title: 'Petit-enfant', parent_id: child.id });
      const client = await reader();
      const page = await client.get('/admin/pages');
      expect(page.status).to.equal(200);
      expect(page.text).to.include('<title>Pages — Site de test</title>');
      // One level at a time: the root, and a link that opens it.
      expect(textOf(page.text)).to.include('Racine').and.include('Ouvrir Racine (1 sous-page)').and.not.include('Enfant');
      expect(page.text).to.include(`href="/admin/pages?open=${root.id}#page-${root.id}"`);
      expect(page.text).not.to.include('Nouvelle page');
      const opened = await client.get(`/admin/pages?open=${grandchild.id}`);
      expect(textOf(opened.text)).to.include('/racine/enfant/petit-enfant').and.include('Replier Enfant');
      expect(textOf(opened.text)).to.include('masquée : sous une page privée');
      const privateOnly = await client.get('/admin/pages?visibility=private');
      expect(textOf(privateOnly.text)).to.include('Enfant').and.include('/racine/enfant').and.not.include('Petit-enfant');
      const publicOnly = await client.get('/admin/pages?visibility=public');
      expect(textOf(publicOnly.text)).to.include('Petit-enfant').and.include('/racine/enfant/petit-enfant').and.include('masquée : sous une page privée');
      expect((await (await AdminClient.as(app, { permissions: ['admin.access'] })).get('/admin/pages')).status).to.equal(403);
    });
  });

  describe('page form', () => {
    it('creates a page (slug derived), refused without pages.manage, re-rendered with the input on errors', async () => {
      expect((await (await reader()).post('/admin/pages', { title: 'X' }, '/admin/pages')).status).to.equal(403);
      const client = await editor();
      const empty = await client.post('/admin/pages', { title: '  ', slug: 'Bad Slug', seo_title: 'Kept SEO' }, '/admin/pages/new');
      expect(empty.status).to.equal(400);
      expect(empty.text).to.include('id="page-title-error"').and.include('value="Kept SEO"');
      const reserved = await client.post('/admin/pages', { title: 'Admin', slug: 'admin' }, '/admin/pages/new');
      expect(reserved.status).to.equal(400);
      expect(reserved.text).to.include('id="page-slug-error"');
      const ok = await client.post(
        '/admin/pages',
        { title: 'Été à Paris', slug: '', parent_id: '', template: 'default', visibility: 'private', seo_title: 'SEO' },
        '/admin/pages/new',
      );
      expect(ok.status).to.equal(303);
      const row = (await ctx.db('app_pages').where({ title: 'Été à Paris' }).first())!;
      expect(row).to.include({ slug: 'ete-a-paris', visibility: 'private', parent_id: null });
      expect(row.seo.title).to.equal('SEO');
      expect(ok.headers.location).to.equal(`/admin/pages/${row.id}`);
      expect(textOf((await client.follow(ok)).text)).to.include('La page est créée.');
    });

    it('edits title, slug, parent, visibility and created_at; refuses a cycle and a future date', async () => {
      const parent = await createPage(ctx, { title: 'Parent' });
      const page = await createPage(ctx, { title: 'Page', parent_id: parent.id });
      const client = await editor();
      const fields = { title: 'Page', slug: 'page', parent_id: String(parent.id), template: 'default', visibility: 'public' };
      expect((await (await reader()).post(`/admin/pages/${page.id}`, fields, '/admin/pages')).status).to.equal(403);
      const cycle = await client.post(
        `/admin/pages/${parent.id}`,
        { ...fields, title: 'Parent', slug: 'parent', parent_id: String(page.id) },
        `/admin/pages/${parent.id}`,
      );
      expect(cycle.status).to.equal(400);
      expect(cycle.text).to.include('id="page-parent-error"');
      const future = await client.post(`/admin/pages/${page.id}`, { ...fields, created_at: '2999-01-01T10:00' }, `/admin/pages/${page.id}`);
      expect(future.status).to.equal(400);
      expect(future.text).to.include('id="page-created-at-error"').and.include('value="2999-01-01T10:00"');
      const ok = await client.post(
        `/admin/pages/${page.id}`,
        { ...fields, title: 'Renamed', slug: '', parent_id: '', visibility: 'private', created_at: '2020-05-01T08:30' },
        `/admin/pages/${page.id}`,
      );
      expect(ok.status).to.equal(303);
      const row = await getPage(ctx, page.id);
      expect(row).to.include({ title: 'Renamed', slug: 'renamed', parent_id: null, visibility: 'private' });
      expect(new Date(row.created_at).toISOString()).to.equal('2020-05-01T08:30:00.000Z');
    });

    it('links to the public URL and duplicates a page', async () => {
      const parent = await createPage(ctx, { title: 'Parent' });
      const page = await createPage(ctx, { title: 'Fiche', parent_id: parent.id, blocks: [{ type: 'paragraph', text: 'Bonjour' }] });
      const client = await editor();
      const edit = await client.get(`/admin/pages/${page.id}`);
      expect(edit.text).to.include('href="/parent/fiche"');
      expect((await (await reader()).post(`/admin/pages/${page.id}/duplicate`, {}, '/admin/pages')).status).to.equal(403);
      const copy = await client.post(`/admin/pages/${page.id}/duplicate`, {}, `/admin/pages/${page.id}`);
      expect(copy.status).to.equal(303);
      const row = (await ctx.db('app_pages').where({ title: 'Fiche (copie)' }).first())!;
      expect(row).to.include({ parent_id: parent.id, slug: 'fiche-2' });
      expect(row.blocks).to.deep.equal([{ type: 'paragraph', text: 'Bonjour' }]);
    });

    it('deletes after confirmation; with children only when the cascade box is checked', async () => {
      const parent = await createPage(ctx, { title: 'Parent' });
      await createPage(ctx, { title: 'Child', parent_id: parent.id });
      const client = await editor();
      expect((await (await reader()).post(`/admin/pages/${parent.id}/delete`, {}, '/admin/pages')).status).to.equal(403);
      const confirm = await client.get(`/admin/pages/${parent.id}/delete`);
      expect(textOf(confirm.text)).to.include('Cette page a 1 sous-page');
      const refused = await client.post(`/admin/pages/${parent.id}/delete`, {}, `/admin/pages/${parent.id}/delete`);
      expect(refused.status).to.equal(409);
      expect(textOf(refused.text)).to.include('la case « Supprimer aussi les sous-pages » les supprime avec elle');
      expect(await ctx.db('app_pages')).to.have.length(2);
      const ok = await client.post(`/admin/pages/${parent.id}/delete`, { cascade: 'on' }, `/admin/pages/${parent.id}/delete`);
      expect(ok.status).to.equal(303);
      expect(await ctx.db('app_pages')).to.have.length(0);
      expect(textOf((await client.follow(ok)).text)).to.include('La page et ses 1 sous-page sont supprimées.');
    });
  });

  describe('block editor (no JavaScript)', () => {
    it('adds, edits, reorders and removes blocks of each type, refused without pages.manage', async () => {
      const page = await createPage(ctx, { title: 'Blocs' });
      const client = await editor();
      const from = `/admin/pages/${page.id}`;
      expect(
        (await (await reader()).post(`/admin/pages/${page.id}/blocks`, { type: 'paragraph', version: await version(page.id) }, '/admin/pages')).status,
      ).to.equal(403);
      const unknown = await client.post(`/admin/pages/${page.id}/blocks`, { type: 'video', version: await version(page.id) }, from);
      expect(unknown.status).to.equal(400);
      for (const type of ['heading', 'paragraph', 'list', 'quote', 'link', 'children']) {
        const added = await client.post(`/admin/pages/${page.id}/blocks`, { type, version: await version(page.id) }, from);
        expect(added.status, type).to.equal(303);
      }
      const save = async (index: number, fields: Record<string, string>) =>
        client.post(`/admin/pages/${page.id}/blocks/${index}`, { ...fields, version: await version(page.id) }, from);
      expect((await save(0, { text: 'Titre', level: '3' })).status).to.equal(303);
      expect((await save(1, { text: 'Un paragraphe' })).status).to.equal(303);
      expect((await save(2, { items: 'un\r\ndeux\r\n\r\ntrois', ordered: 'on' })).status).to.equal(303);
      expect((await save(3, { text: 'Citation', cite: 'Auteur' })).status).to.equal(303);
      const badLink = await save(4, { href: 'javascript:alert(1)', label: 'Kept label' });
      expect(badLink.status).to.equal(400);
      expect(badLink.text).to.include('id="block-4-href-error"').and.include('value="Kept label"');
      expect((await save(4, { href: '/ailleurs', label: 'Ailleurs' })).status).to.equal(303);
      const badLevel = await save(0, { text: 'Titre', level: '9' });
      expect(badLevel.status).to.equal(400);
      expect(badLevel.text).to.include('id="block-0-level-error"');
      let blocks = (await getPage(ctx, page.id)).blocks;
      expect(blocks.slice(0, 5)).to.deep.equal([
        { type: 'heading', text: 'Titre', level: 3 },
        { type: 'paragraph', text: 'Un paragraphe' },
        { type: 'list', items: ['un', 'deux', 'trois'], ordered: true },
        { type: 'quote', text: 'Citation', cite: 'Auteur' },
        { type: 'link', href: '/ailleurs', label: 'Ailleurs' },
      ]);
      const moved = await client.post(`/admin/pages/${page.id}/blocks/1/move`, { direction: 'up', version: await version(page.id) }, from);
      expect(moved.status).to.equal(303);
      blocks = (await getPage(ctx, page.id)).blocks;
      expect(blocks.map((block) => block.type).slice(0, 2)).to.deep.equal(['paragraph', 'heading']);
      const removed = await client.post(`/admin/pages/${page.id}/blocks/5/delete`, { version: await version(page.id) }, from);
      expect(removed.status).to.equal(303);
      expect((await getPage(ctx, page.id)).blocks).to.have.length(5);
      expect((await client.post(`/admin/pages/${page.id}/blocks/9/delete`, { version: await version(page.id) }, from)).status).to.equal(404);
    });

    it('refuses an action rendered from an older version of the page and shows the current blocks', async () => {
      const page = await createPage(ctx, {
        title: 'Concurrence',
        blocks: [
          { type: 'paragraph', text: 'A' },
          { type: 'paragraph', text: 'B' },
        ],
      });
      const client = await editor();
      const stale = await version(page.id);
      await client.post(`/admin/pages/${page.id}/blocks/0/delete`, { version: stale }, `/admin/pages/${page.id}`);
      const again = await client.post(`/admin/pages/${page.id}/blocks/0/delete`, { version: stale }, `/admin/pages/${page.id}`);
      expect(again.status).to.equal(409);
      expect(textOf(again.text)).to.include('La page a changé depuis l’ouverture de ce formulaire');
      expect((await getPage(ctx, page.id)).blocks).to.deep.equal([{ type: 'paragraph', text: 'B' }]);
    });

    it('picks the image of an image block from the media library and shows it on the public site', async () => {
      const media = await insertMedia(
        ctx,
        { filename: 'media/' + 'a'.repeat(32) + '.png', original_name: 'photo.png', mime_type: 'image/png', size: 10, alt: 'Une photo' },
        null,
      );
      const page = await createPage(ctx, { title: 'Galerie' });
      const client = await editor();
      const from = `/admin/pages/${page.id}`;
      await client.post(`/admin/pages/${page.id}/blocks`, { type: 'image', version: await version(page.id) }, from);
      const edit = await client.get(from);
      expect(edit.text).to.include(`name="media_id" value="${media.id}"`).and.include(media.url);
      const missing = await client.post(`/admin/pages/${page.id}/blocks/0`, { version: await version(page.id) }, from);
      expect(missing.status).to.equal(400);
      const unknown = await client.post(`/admin/pages/${page.id}/blocks/0`, { media_id: '999999', version: await version(page.id) }, from);
      expect(unknown.status).to.equal(400);
      expect(unknown.text).to.include('id="block-0-media_id-error"');
      const ok = await client.post(`/admin/pages/${page.id}/blocks/0`, { media_id: String(media.id), version: await version(page.id) }, from);
      expect(ok.status).to.equal(303);
      expect((await getPage(ctx, page.id)).blocks).to.deep.equal([{ type: 'image', media_id: media.id }]);
      const site = await request(app).get('/galerie');
      expect(site.text).to.include(`src="${media.url}"`).and.include('alt="Une photo"');
    });
  });

  describe('media library', () => {
    it('uploads an image with its texts, refuses a non-image on the same page, and needs pages.manage', async () => {
      const client = await editor();
      const token = await client.token('/admin/media');
      const refusedReader = await reader();
      expect((await refusedReader.get('/admin/media')).status).to.equal(403);
      const notImage = await request(app)
        .post('/admin/media')
        .set('Cookie', client.cookies())
        .field('_csrf', token)
        .field('alt', 'Kept alt')
        .attach('file', Buffer.from('text'), 'x.png');
      expect(notImage.status).to.equal(415);
      expect(textOf(notImage.text)).to.include('Seules les images PNG, JPEG et WebP sont acceptées.');
      expect(notImage.text).to.include('value="Kept alt"');
      const ok = await request(app)
        .post('/admin/media')
        .set('Cookie', client.cookies())
        .field('_csrf', token)
        .field('alt', 'Un logo')
        .field('caption', 'Légende')
        .attach('file', PNG_1X1, 'logo.png');
      expect(ok.status).to.equal(303);
      const row = (await ctx.db('app_pages_media').first())!;
      expect(row).to.include({ alt: 'Un logo', caption: 'Légende', original_name: 'logo.png' });
      const list = await client.get('/admin/media');
      expect(list.text).to.include(`src="/uploads/${row.filename}"`);
    });

    it('edits alt text and caption (too long refused with the input kept) and deletes after confirmation unless a page uses it', async () => {
      const media = await insertMedia(ctx, { filename: 'media/' + 'b'.repeat(32) + '.png', original_name: 'b.png', mime_type: 'image/png', size: 10 }, null);
      const client = await editor();
      expect((await (await reader()).post(`/admin/media/${media.id}`, { alt: 'x' }, '/admin/pages')).status).to.equal(403);
      const long = await client.post(`/admin/media/${media.id}`, { alt: 'a'.repeat(501), caption: 'Kept caption' }, `/admin/media/${media.id}`);
      expect(long.status).to.equal(400);
      expect(long.text).to.include('id="media-alt-error"').and.include('Kept caption');
      const ok = await client.post(`/admin/media/${media.id}`, { alt: 'Texte', caption: 'Légende' }, `/admin/media/${media.id}`);
      expect(ok.status).to.equal(303);
      expect(await ctx.db('app_pages_media').where({ id: media.id }).first()).to.include({ alt: 'Texte', caption: 'Légende' });
      await createPage(ctx, { title: 'Utilise', blocks: [{ type: 'image', media_id: media.id }] });
      const inUse = await client.post(`/admin/media/${media.id}/delete`, {}, `/admin/media/${media.id}`);
      expect(inUse.status).to.equal(409);
      expect(textOf(inUse.text)).to.include('Ce média est utilisé par 1 page');
      await ctx.db('app_pages').delete();
      const deleted = await client.post(`/admin/media/${media.id}/delete`, {}, `/admin/media/${media.id}`);
      expect(deleted.status).to.equal(303);
      expect(await ctx.db('app_pages_media').where({ id: media.id })).to.have.length(0);
    });
  });
});
