// Themes in one process: a site theme in a temporary THEMES_DIR (test/themes/fixture.ts)
// listed, activated through the API, its layout, template and block type used by the
// site at once; its block type in the editor (HTML form, no JavaScript) and checked by
// the server from its declaration; an invalid theme.json refused with its problem; the
// assets hashed and immutable; a block the active theme does not know kept on save.
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { getDraft } from '../../models/pages/drafts.js';
import { insertMedia } from '../../models/pages/media.js';
import { getPage } from '../../models/pages/pages.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makePage, userWith } from '../pages/helpers.js';
import { formFields, setField, submitEditor } from '../pages/editor-form.js';
import { makeThemesDir, TEST_THEME, THEME_CSS } from './fixture.js';

const CALLOUT = { type: 'callout', tone: 'info', text: 'Lire *ceci* d’abord.' };

describe('themes (THEMES_DIR, /app/api/admin/themes, the site and the editor)', () => {
  let app: App;
  let ctx: AppContext;
  let themesDir: string;
  let admin: { id: number; cookie: string };
  before(() => {
    themesDir = makeThemesDir();
    app = createTestApp({ THEMES_DIR: themesDir });
    ctx = contextOf(app);
  });
  after(() => rmSync(themesDir, { recursive: true, force: true }));
  beforeEach(async () => {
    await resetData(ctx);
    admin = await userWith(ctx, ['admin.access', 'settings.manage', 'pages.view', 'pages.manage', 'pages.publish']);
  });

  const activate = (theme: string) => request(app).put('/app/api/admin/settings').set('Cookie', admin.cookie).send({ theme });
  const writePage = (id: number, body: Record<string, unknown>) => request(app).put(`/app/api/admin/pages/${id}`).set('Cookie', admin.cookie).send(body);

  it('lists the installed themes, the invalid one with its problem, to holders of settings.manage only', async () => {
    const listed = await request(app).get('/app/api/admin/themes').set('Cookie', admin.cookie);
    expect(listed.status).to.equal(200);
    const byName = Object.fromEntries((listed.body.items as Array<{ name: string; error: string | null }>).map((item) => [item.name, item]));
    expect(byName.default).to.deep.equal({ name: 'default', label: 'Par défaut', version: '1.0.0', active: true, valid: true, error: null });
    expect(byName[TEST_THEME]).to.deep.equal({ name: TEST_THEME, label: 'Thème d’essai', version: '2.1.0', active: false, valid: true, error: null });
    expect(byName.casse).to.include({ valid: false, active: false });
    expect(byName.casse.error ?? '').to.include('blocks.callout.fields.tone.options');
    const editor = await userWith(ctx, ['admin.access', 'pages.manage', 'pages.publish']);
    expect((await request(app).get('/app/api/admin/themes').set('Cookie', editor.cookie)).status).to.equal(403);
  });

  it('refuses to activate an invalid or unknown theme (400 naming `theme`, with the problem)', async () => {
    const invalid = await activate('casse');
    expect(invalid.status).to.equal(400);
    const detail = invalid.body.details.find((item: { field: string }) => item.field === 'theme');
    expect(detail.message).to.include('Ce thème ne peut pas être activé').and.include('blocks.callout.fields.tone.options');
    const unknown = await activate('absent');
    expect(unknown.status).to.equal(400);
    expect(unknown.body.details[0]).to.deep.equal({ field: 'theme', message: 'Ce thème n’est pas installé.' });
    expect((await ctx.db('app_site_settings').first())?.theme ?? 'default').to.equal('default');
  });

  it('uses the activated theme at once: its layout, its stylesheet (hashed, immutable), its template and block type', async () => {
    const page = await makePage(ctx, { title: 'Démarrer', template: 'default', blocks: [CALLOUT] });
    const before = await request(app).get('/demarrer');
    expect(before.text).to.include('data-theme="default"').and.not.include('layout-essai');
    // The callout is unknown to the default theme: rendered as nothing.
    expect(before.text).to.not.include('callout');

    expect((await activate(TEST_THEME)).status).to.equal(200);
    const after = await request(app).get('/demarrer');
    expect(after.status).to.equal(200);
    expect(after.text).to.include('class="layout-essai"').and.include(`data-theme="${TEST_THEME}"`);
    expect(after.text).to.include('<aside class="callout callout-info"><p>Lire <em>ceci</em> d’abord.</p></aside>');

    const href = /<link rel="stylesheet" href="(\/theme\/essai\/theme\.[0-9a-f]{8}\.css)">/.exec(after.text)?.[1];
    expect(href, 'the hashed stylesheet').to.be.a('string');
    const css = await request(app).get(href!);
    expect(css.status).to.equal(200);
    expect(css.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(css.headers['content-type']).to.match(/^text\/css/);
    expect(css.text).to.equal(THEME_CSS);
    for (const path of ['/theme/essai/theme.css', '/theme/essai/theme.00000000.css', '/theme/essai/theme.json', '/theme/absent/theme.css']) {
      expect((await request(app).get(path)).status, path).to.equal(404);
    }
    for (const path of ['/theme/essai/..%2Ftheme.json', '/theme/essai/..%2F..%2F..%2Fpackage.json', '/theme/essai/views/..']) {
      const refused = await request(app).get(path);
      expect(refused.status, path).to.be.oneOf([400, 404]);
      expect(refused.text).to.not.include('"name"');
    }

    // The theme's template is offered, and renders with the data filters.
    const templates = await request(app).get('/app/api/admin/pages/templates').set('Cookie', admin.cookie);
    expect(templates.body.items).to.deep.include({ name: 'guide', label: 'Guide' });
    expect((await writePage(page.id, { template: 'guide' })).status).to.equal(200);
    await makePage(ctx, { title: 'Étape un', parent_id: page.id });
    const guide = await request(app).get('/demarrer');
    expect(guide.text).to.include('<h1>Guide : Démarrer</h1>').and.include('<a href="/demarrer/etape-un">Étape un</a>');
  });

  it('checks a theme block from its declaration on the API (400 naming the field), and keeps a good one', async () => {
    expect((await activate(TEST_THEME)).status).to.equal(200);
    const page = await makePage(ctx, { title: 'Blocs' });
    const blocks = [
      { type: 'paragraph', text: 'Avant' },
      { type: 'paragraph', text: 'Encore' },
    ];
    const badTone = await writePage(page.id, { blocks: [...blocks, { ...CALLOUT, tone: 'rouge' }] });
    expect(badTone.status).to.equal(400);
    expect(badTone.body.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['blocks.2.tone']);
    const missing = await writePage(page.id, { blocks: [...blocks, { type: 'callout', tone: 'info' }] });
    expect(missing.status).to.equal(400);
    expect(missing.body.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['blocks.2.text']);
    const extra = await writePage(page.id, { blocks: [{ ...CALLOUT, colour: 'red' }] });
    expect(extra.status).to.equal(400);
    expect(extra.body.details[0].field).to.equal('blocks.0.colour');
    const good = await writePage(page.id, { blocks: [...blocks, CALLOUT] });
    expect(good.status).to.equal(200);
    expect((await getPage(ctx, page.id)).blocks[2]).to.include(CALLOUT);
    // An `image` field names a media; the view reaches it through the `media` filter.
    const media = await insertMedia(
      ctx,
      { filename: 'media/0123456789abcdef0123456789abcdef.png', original_name: 'a.png', mime_type: 'image/png', size: 10, alt: 'Un phare' },
      null,
    );
    expect((await writePage(page.id, { blocks: [{ ...CALLOUT, picture: 'phare' }] })).body.details[0].field).to.equal('blocks.0.picture');
    expect((await writePage(page.id, { blocks: [{ ...CALLOUT, picture: media.id }] })).status).to.equal(200);
    const site = await request(app).get('/blocs');
    expect(site.text).to.include(`<img class="callout-picture" src="/uploads/media/0123456789abcdef0123456789abcdef.png" alt="Un phare">`);
  });

  it('shows the theme block’s fields in the editor (no JavaScript), refuses a bad value beside its field, saves a good one', async () => {
    expect((await activate(TEST_THEME)).status).to.equal(200);
    const page = await makePage(ctx, { title: 'Éditeur', blocks: [CALLOUT] });
    const client = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
    const screen = await client.get(`/admin/pages/${page.id}`);
    expect(screen.status).to.equal(200);
    expect(screen.text).to.include('Encadré');
    expect(screen.text).to.match(/<select[^>]*name="b\.0\.tone"/);
    expect(screen.text).to.include('<option value="warning"');
    expect(screen.text).to.match(/<textarea[^>]*name="b\.0\.text"/);
    expect(screen.text).to.include('name="b.0.wide"').and.include('name="b.0.picture"');
    // The block type is offered in the «add» list, as the template in the template list.
    expect(screen.text).to.include('value="callout"').and.include('value="guide"');

    const fields = formFields(screen.text);
    setField(fields, 'b.0.text', '');
    const refused = await submitEditor(client, page.id, fields);
    expect(refused.status).to.equal(400);
    expect(textOf(refused.text)).to.include('Texte');
    expect(refused.text).to.match(/<textarea[^>]*name="b\.0\.text"/);

    setField(fields, 'b.0.text', 'Nouveau texte');
    setField(fields, 'b.0.tone', 'warning');
    const saved = await submitEditor(client, page.id, fields);
    expect(saved.status).to.equal(303);
    const draft = await getDraft(ctx, page.id);
    expect(draft.blocks[0]).to.include({ type: 'callout', tone: 'warning', text: 'Nouveau texte', wide: false });
  });

  it('keeps a block the active theme does not know through a save (form and API), shown read-only and rendered as nothing', async () => {
    const page = await makePage(ctx, {
      title: 'Inconnu',
      blocks: [
        { type: 'paragraph', text: 'Texte' },
        { ...CALLOUT, id: 'bloc-theme' },
      ],
    });
    const client = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
    const screen = await client.get(`/admin/pages/${page.id}`);
    expect(textOf(screen.text)).to.include('Bloc inconnu du thème actif');
    expect(screen.text).to.not.match(/name="b\.1\.tone"/);
    const fields = formFields(screen.text);
    setField(fields, 'b.0.text', 'Texte revu');
    expect((await submitEditor(client, page.id, fields, 'publish')).status).to.equal(303);
    const stored = await getPage(ctx, page.id);
    expect(stored.blocks.map((block) => block.type)).to.deep.equal(['paragraph', 'callout']);
    expect(stored.blocks[1]).to.include({ ...CALLOUT, id: 'bloc-theme' });

    const viaApi = await writePage(page.id, { title: 'Inconnu revu', blocks: stored.blocks });
    expect(viaApi.status).to.equal(200);
    expect((await getPage(ctx, page.id)).blocks[1]).to.include(CALLOUT);
    const site = await request(app).get('/inconnu');
    expect(site.text).to.include('Texte revu').and.not.include('Lire');
  });

  it('says how to use a data filter that a theme view calls as a function', async () => {
    const theme = await ctx.site.themeSource!.active(ctx, TEST_THEME);
    expect(theme.name).to.equal(TEST_THEME);
    expect(() => theme.views.renderString('{{ listPublicChildPages(1) }}', {})).to.throw(
      /asynchronous filter, not a function: \{% set children = page\.id \| listPublicChildPages %\}/,
    );
  });

  it('lists the themes on the settings screen with a thumbnail or a placeholder, and switches theme from the form', async () => {
    const client = await AdminClient.as(app, { permissions: ['admin.access', 'settings.manage'] });
    const screen = await client.get('/admin/settings');
    expect(screen.status).to.equal(200);
    const thumbnail = /<img class="theme-thumbnail" src="(\/theme\/essai\/thumbnail\.[0-9a-f]{8}\.svg)"/.exec(screen.text)?.[1];
    expect(thumbnail, 'the test theme’s thumbnail').to.be.a('string');
    expect((await request(app).get(thumbnail!)).headers['content-type']).to.match(/^image\/svg\+xml/);
    expect(screen.text).to.include('theme-thumbnail-none');
    expect(screen.text).to.match(/name="theme" value="casse" disabled/);
    const saved = await client.post('/admin/settings', { title: 'Mon site', theme: TEST_THEME }, '/admin/settings');
    expect(saved.status).to.equal(303);
    expect((await ctx.db('app_site_settings').first())?.theme).to.equal(TEST_THEME);
    // The 404 page reads nothing: it uses the theme once this process has loaded it (here, for `/`).
    expect((await request(app).get('/')).text).to.include(`data-theme="${TEST_THEME}"`);
    expect((await request(app).get('/nulle-part')).text).to.include(`data-theme="${TEST_THEME}"`);
  });
});
