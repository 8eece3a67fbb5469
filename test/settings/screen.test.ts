// The screen /admin/settings, as a browser without JavaScript uses it: the form posted
// with its CSRF token, a refusal shown beside its field with the input kept, the home
// page picker's search (a GET form), the images' forms (multipart), the navigation
// entry for holders of settings.manage only.
import { expect } from 'chai';
import request from 'supertest';
import sharp from 'sharp';
import type { AppContext } from '../../lib/context.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makeChain, makePage } from '../pages/helpers.js';

const FORM = {
  title: 'Mon site',
  tagline: 'Un slogan',
  accent_colour: '#224466',
  home_page_id: '',
  footer: 'Pied de *page*',
  time_zone: 'America/Montreal',
  noindex: 'on',
  theme: 'default',
};

describe('the settings screen (/admin/settings)', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const owner = () => AdminClient.as(app, { permissions: ['admin.access', 'settings.manage'] });
  const rowOf = () => ctx.db('app_site_settings').first();

  it('is in the navigation of holders of settings.manage only, and refuses the others (403)', async () => {
    const client = await owner();
    const screen = await client.get('/admin/settings');
    expect(screen.status).to.equal(200);
    expect(screen.text).to.include('<h1>Réglages du site</h1>');
    expect(screen.text).to.include('href="/admin/settings"');
    const editor = await AdminClient.as(app, { permissions: ['admin.access', 'pages.manage'] });
    expect((await editor.get('/admin')).text).to.not.include('href="/admin/settings"');
    expect((await editor.get('/admin/settings')).status).to.equal(403);
    expect((await editor.post('/admin/settings', FORM, '/admin')).status).to.equal(403);
    expect(await rowOf()).to.equal(undefined);
  });

  it('saves the form (303, the message on the screen) and shows the saved values', async () => {
    const [home] = await makeChain(ctx, 1, 'bienvenue');
    const client = await owner();
    const saved = await client.post('/admin/settings', { ...FORM, home_page_id: String(home) }, '/admin/settings');
    expect(saved.status).to.equal(303);
    const page = await client.follow(saved);
    expect(textOf(page.text)).to.include('Les réglages du site sont enregistrés.');
    expect(page.text).to.include('value="Mon site"').and.include('value="#224466"');
    expect(page.text).to.match(new RegExp(`name="home_page_id" value="${home}" checked`));
    expect(page.text).to.include('<option value="America/Montreal" selected>');
    expect(page.text).to.match(/name="noindex" value="on" checked/);
    expect(await rowOf()).to.include({
      title: 'Mon site',
      tagline: 'Un slogan',
      accent_colour: '#224466',
      home_page_id: home,
      footer: 'Pied de *page*',
      time_zone: 'America/Montreal',
      noindex: true,
    });
    // Unchecked and emptied: the defaults back.
    await client.post('/admin/settings', { ...FORM, noindex: [], accent_colour: '', time_zone: '' }, '/admin/settings');
    expect(await rowOf()).to.include({ noindex: false, accent_colour: null, time_zone: null, home_page_id: null });
  });

  it('refuses a bad colour and a private home page beside their fields, the input kept, nothing written', async () => {
    const hidden = await makePage(ctx, { title: 'Cachée', slug: 'cachee', visibility: 'private' });
    const client = await owner();
    const colour = await client.post('/admin/settings', { ...FORM, accent_colour: 'rouge' }, '/admin/settings');
    expect(colour.status).to.equal(400);
    expect(colour.text).to.include('id="settings-accent-error"');
    expect(textOf(colour.text)).to.include('La couleur d’accent s’écrit #rrggbb');
    expect(colour.text).to.include('value="rouge"').and.include('value="Un slogan"');
    const home = await client.post('/admin/settings', { ...FORM, home_page_id: String(hidden.id) }, '/admin/settings');
    expect(home.status).to.equal(400);
    expect(home.text).to.include('id="settings-home-error"');
    expect(textOf(home.text)).to.include('La page d’accueil doit être une page publiée et publique.');
    const empty = await client.post('/admin/settings', { ...FORM, title: '' }, '/admin/settings');
    expect(empty.status).to.equal(400);
    expect(empty.text).to.include('id="settings-title-error"');
    expect(await rowOf()).to.equal(undefined);
  });

  it('finds home page candidates with a GET search: public pages only', async () => {
    await makePage(ctx, { title: 'Jardin public', slug: 'jardin' });
    await makePage(ctx, { title: 'Jardin secret', slug: 'secret', visibility: 'private' });
    const client = await owner();
    const found = await client.get('/admin/settings?home_q=jardin');
    expect(found.status).to.equal(200);
    expect(found.text).to.include('Jardin public').and.include('value="jardin"');
    expect(found.text).to.not.include('Jardin secret');
    expect(found.text).to.include('<form id="home-search" method="get" action="/admin/settings#settings-home">');
  });

  it('uploads and removes the logo and favicon through their forms', async () => {
    const client = await owner();
    const token = await client.token('/admin/settings');
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    for (const path of ['logo', 'favicon']) {
      const sent = await request(app).post(`/admin/settings/${path}`).set('Cookie', client.cookies()).field('_csrf', token).attach('file', png, 'image.png');
      expect(sent.status, path).to.equal(303);
    }
    const row = await rowOf();
    expect(row?.logo).to.match(/^\/uploads\/site\/[a-f0-9]{32}\.png$/);
    expect(Object.keys(row?.favicon ?? {})).to.have.length(6);
    const screen = await client.get('/admin/settings');
    expect(screen.text).to.include(`src="${row?.logo}"`);
    const notImage = await request(app)
      .post('/admin/settings/logo')
      .set('Cookie', client.cookies())
      .field('_csrf', token)
      .attach('file', Buffer.from('texte'), 'x.png');
    expect(notImage.status).to.equal(415);
    const removed = await client.post('/admin/settings/logo/delete', {}, '/admin/settings');
    expect(removed.status).to.equal(303);
    expect(textOf((await client.follow(removed)).text)).to.include('L’image est retirée.');
    expect((await rowOf())?.logo).to.equal(null);
    const forged = await request(app).post('/admin/settings/favicon/delete').set('Cookie', client.cookies()).type('form').send('_csrf=faux');
    expect(forged.status).to.equal(403);
    expect((await rowOf())?.favicon).to.not.equal(null);
  });
});
