// The pages module's admin screens: tree, page form, the one-document editor without JavaScript,
// duplicate, delete with the children rule, media library.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { createPage, getPage } from '../../../models/pages/pages.js';
import { insertMedia } from '../../../models/pages/media.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { PNG_1X1 } from '../../support/fixtures.js';
import { AdminClient, textOf } from '../../support/admin-client.js';
import { getDraft } from '../../../models/pages/drafts.js';
import { fieldValue, formFields, setField, submitEditor } from '../../pages/editor-form.js';
import { withoutIds } from '../../pages/helpers.js';

describe('/admin pages screens', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const editor = () => AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
  const reader = () => AdminClient.as(app, { permissions: ['admin.access', 'pages.view'] });

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

    it('edits title, slug, parent, visibility and created_at in the editor and publishes; refuses a cycle and a future date', async () => {
      const parent = await createPage(ctx, { title: 'Parent' });
      const page = await createPage(ctx, { title: 'Page', parent_id: parent.id });
      const client = await editor();
      const open = async (id: number) => formFields((await client.get(`/admin/pages/${id}`)).text);
      const denied = await (await reader()).post(`/admin/pages/${page.id}`, { if_revision: '1', title: 'Page' }, '/admin/pages');
      expect(denied.status).to.equal(403);
      const cycle = await submitEditor(client, parent.id, setField(await open(parent.id), 'parent_id', String(page.id)));
      expect(cycle.status).to.equal(400);
      expect(cycle.text).to.include('id="page-parent-error"');
      const future = await submitEditor(client, page.id, setField(await open(page.id), 'created_at', '2999-01-01T10:00'));
      expect(future.status).to.equal(400);
      expect(future.text).to.include('id="page-created-at-error"').and.include('value="2999-01-01T10:00"');
      const fields = await open(page.id);
      for (const [name, value] of Object.entries({ title: 'Renamed', slug: '', parent_id: '', visibility: 'private', created_at: '2020-05-01T08:30' })) {
        setField(fields, name, value);
      }
      const ok = await submitEditor(client, page.id, fields, 'publish');
      expect(ok.status).to.equal(303);
      const row = await getPage(ctx, page.id);
      expect(row).to.include({ title: 'Renamed', slug: 'renamed', parent_id: null, visibility: 'private' });
      // The form's date is the site's wall clock: 8 h 30 in Paris in May is 6 h 30 UTC.
      expect(new Date(row.created_at).toISOString()).to.equal('2020-05-01T06:30:00.000Z');
      expect(fieldValue(await open(page.id), 'created_at')).to.equal('2020-05-01T08:30');
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
      expect(withoutIds(row.blocks)).to.deep.equal([{ type: 'paragraph', text: 'Bonjour' }]);
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
    it('adds and edits blocks of each type in the one form, refuses an unknown type and bad values with the input kept', async () => {
      const page = await createPage(ctx, { title: 'Blocs' });
      const client = await editor();
      const open = async () => formFields((await client.get(`/admin/pages/${page.id}`)).text);
      const unknown = await submitEditor(client, page.id, setField(await open(), 'add_type', 'video'), 'add');
      expect(unknown.status).to.equal(400);
      for (const type of ['heading', 'paragraph', 'list', 'quote', 'link', 'children']) {
        const added = await submitEditor(client, page.id, setField(await open(), 'add_type', type), 'add');
        expect(added.status, type).to.equal(303);
      }
      const fields = await open();
      const values = { 'b.0.text': 'Titre', 'b.0.level': '3', 'b.1.text': 'Un paragraphe', 'b.2.items': 'un\r\ndeux\r\n\r\ntrois', 'b.3.text': 'Citation' };
      for (const [name, value] of Object.entries(values)) setField(fields, name, value);
      fields.push(['b.2.ordered', 'on']);
      setField(fields, 'b.3.cite', 'Auteur');
      setField(fields, 'b.4.href', 'javascript:alert(1)');
      setField(fields, 'b.4.label', 'Kept label');
      const badLink = await submitEditor(client, page.id, fields);
      expect(badLink.status).to.equal(400);
      expect(badLink.text).to.include('id="b-4-href-error"').and.include('value="Kept label"').and.include('Un paragraphe');
      setField(fields, 'b.4.href', '/ailleurs');
      setField(fields, 'b.4.label', 'Ailleurs');
      setField(fields, 'b.0.level', '9');
      const badLevel = await submitEditor(client, page.id, fields);
      expect(badLevel.status).to.equal(400);
      expect(badLevel.text).to.include('id="b-0-level-error"');
      setField(fields, 'b.0.level', '3');
      expect((await submitEditor(client, page.id, fields, 'publish')).status).to.equal(303);
      expect(withoutIds((await getPage(ctx, page.id)).blocks)).to.deep.equal([
        { type: 'heading', text: 'Titre', level: 3 },
        { type: 'paragraph', text: 'Un paragraphe' },
        { type: 'list', items: ['un', 'deux', 'trois'], ordered: true },
        { type: 'quote', text: 'Citation', cite: 'Auteur' },
        { type: 'link', href: '/ailleurs', label: 'Ailleurs' },
        { type: 'children', title: '' },
      ]);
    });

    it('keeps a block of a type without an editor as it was stored', async () => {
      const page = await createPage(ctx, {
        title: 'Mélange',
        blocks: [
          { type: 'video', src: 'https://example.com/v.mp4', note: 'garder « ceci »' },
          { type: 'paragraph', text: 'A' },
        ],
      });
      const client = await editor();
      const fields = formFields((await client.get(`/admin/pages/${page.id}`)).text);
      expect((await submitEditor(client, page.id, fields, 'up:1')).status).to.equal(303);
      expect(withoutIds((await getDraft(ctx, page.id)).blocks)).to.deep.equal([
        { type: 'paragraph', text: 'A' },
        { type: 'video', src: 'https://example.com/v.mp4', note: 'garder « ceci »' },
      ]);
    });

    it('picks the image of an image block from the media library and shows it on the public site once published', async () => {
      const media = await insertMedia(
        ctx,
        { filename: 'media/' + 'a'.repeat(32) + '.png', original_name: 'photo.png', mime_type: 'image/png', size: 10, alt: 'Une photo' },
        null,
      );
      const page = await createPage(ctx, { title: 'Galerie' });
      const client = await editor();
      const open = async () => formFields((await client.get(`/admin/pages/${page.id}`)).text);
      expect((await submitEditor(client, page.id, setField(await open(), 'add_type', 'image'), 'add')).status).to.equal(303);
      const edit = await client.get(`/admin/pages/${page.id}`);
      expect(edit.text).to.include(`name="b.0.media_id" value="${media.id}"`).and.include(media.url);
      // A picture needs its text alternative (or to be marked decorative): refused server-side.
      const noAlt = await submitEditor(client, page.id, setField(await open(), 'b.0.media_id', String(media.id)));
      expect(noAlt.status).to.equal(400);
      expect(noAlt.text).to.include('id="b-0-alt-error"').and.include('Texte alternatif requis');
      const unknown = await submitEditor(client, page.id, setField(setField(await open(), 'b.0.media_id', '999999'), 'b.0.alt', 'Une photo'));
      expect(unknown.status).to.equal(400);
      expect(unknown.text).to.include('id="b-0-media_id-error"');
      const ok = await submitEditor(
        client,
        page.id,
        setField(setField(await open(), 'b.0.media_id', String(media.id)), 'b.0.alt', 'La galerie en été'),
        'publish',
      );
      expect(ok.status).to.equal(303);
      expect(withoutIds((await getPage(ctx, page.id)).blocks)).to.deep.equal([{ type: 'image', media_id: media.id, alt: 'La galerie en été' }]);
      const site = await request(app).get('/galerie');
      // The block's own text wins over the library's.
      expect(site.text).to.include(`src="${media.url}"`).and.include('alt="La galerie en été"');
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
