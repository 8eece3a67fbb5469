// The site's settings through /app/api/admin/settings: the whole object, a partial
// change, each bad value refused with 400 naming its field and nothing written, the
// permission, and the three images (logo, favicon, social image) stored through the
// upload storage, the favicon as PNGs of each size and /favicon.ico.
import { expect } from 'chai';
import request from 'supertest';
import sharp from 'sharp';
import type { AppContext } from '../../lib/context.js';
import type { SiteSettingsRow } from '../../lib/tables.js';
import { updatePage } from '../../models/pages/pages.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makeChain, makePage, PNG_BYTES, userWith } from '../pages/helpers.js';

const API = '/app/api/admin/settings';

/** A 600×400 PNG of one colour: the favicon is made square from it. */
function widePng(): Promise<Buffer> {
  return sharp({ create: { width: 600, height: 400, channels: 4, background: { r: 200, g: 30, b: 60, alpha: 1 } } })
    .png()
    .toBuffer();
}

async function binary(app: App, path: string): Promise<request.Response> {
  return request(app)
    .get(path)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
}

describe('site settings API (/app/api/admin/settings)', () => {
  let app: App;
  let ctx: AppContext;
  let admin: { id: number; cookie: string };
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    admin = await userWith(ctx, ['admin.access', 'settings.manage']);
  });

  // The row, or undefined when nothing was ever chosen (typed as found, for the assertions).
  const rowOf = async () => (await ctx.db('app_site_settings').first()) as SiteSettingsRow & { favicon: Record<string, string> };

  it('answers the defaults while nothing was chosen: APP_NAME, APP_TIMEZONE, the default theme', async () => {
    const res = await request(app).get(API).set('Cookie', admin.cookie);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      title: ctx.config.appName,
      tagline: '',
      accent_colour: null,
      home_page_id: null,
      footer: '',
      time_zone: ctx.config.timeZone,
      noindex: false,
      theme: 'default',
      logo_url: null,
      favicon_url: null,
      social_image_url: null,
    });
    expect(await rowOf()).to.equal(undefined);
  });

  it('changes only the fields sent and answers the whole object', async () => {
    const [home] = await makeChain(ctx, 1, 'bienvenue');
    const first = await request(app)
      .put(API)
      .set('Cookie', admin.cookie)
      .send({ title: 'Mon site', accent_colour: '#1D4ED8', home_page_id: home, time_zone: 'America/Montreal', noindex: true });
    expect(first.status).to.equal(200);
    expect(first.body).to.include({
      title: 'Mon site',
      accent_colour: '#1d4ed8',
      home_page_id: home,
      time_zone: 'America/Montreal',
      noindex: true,
      tagline: '',
    });
    const second = await request(app).put(API).set('Cookie', admin.cookie).send({ tagline: 'Un slogan', footer: 'Fait avec *soin*' });
    expect(second.status).to.equal(200);
    expect(second.body).to.include({ title: 'Mon site', tagline: 'Un slogan', footer: 'Fait avec *soin*', accent_colour: '#1d4ed8', noindex: true });
    const row = await rowOf();
    expect(row).to.include({
      title: 'Mon site',
      tagline: 'Un slogan',
      accent_colour: '#1d4ed8',
      home_page_id: home,
      time_zone: 'America/Montreal',
      noindex: true,
      updated_by: admin.id,
    });
    // null puts the default back.
    const reset = await request(app).put(API).set('Cookie', admin.cookie).send({ title: null, time_zone: null });
    expect(reset.body).to.include({ title: ctx.config.appName, time_zone: ctx.config.timeZone });
    expect(await rowOf()).to.include({ title: null, time_zone: null });
    const audit = await ctx.db('app_audit_events').where({ action: 'settings.updated' }).orderBy('id');
    expect(audit.map((event) => event.details.fields)).to.deep.equal([
      ['title', 'accent_colour', 'home_page_id', 'time_zone', 'noindex'],
      ['tagline', 'footer'],
      ['title', 'time_zone'],
    ]);
  });

  describe('refuses a bad value with 400 naming the field, and writes nothing', () => {
    const cases: Array<[string, (ids: { privatePage: number; draftChild: number }) => Record<string, unknown>, string]> = [
      ['an accent colour not #rrggbb', () => ({ accent_colour: 'blue' }), 'accent_colour'],
      ['an accent colour of three digits', () => ({ accent_colour: '#123' }), 'accent_colour'],
      ['a home page that does not exist', () => ({ home_page_id: 999999 }), 'home_page_id'],
      ['a private home page', ({ privatePage }) => ({ home_page_id: privatePage }), 'home_page_id'],
      ['a home page under a private page', ({ draftChild }) => ({ home_page_id: draftChild }), 'home_page_id'],
      ['a home page id that is not a number', () => ({ home_page_id: 'accueil' }), 'home_page_id'],
      ['a time zone that does not exist', () => ({ time_zone: 'Europe/Atlantide' }), 'time_zone'],
      ['a theme that is not installed', () => ({ theme: 'sombre' }), 'theme'],
      ['an empty title', () => ({ title: '' }), 'title'],
      ['a title over 120 characters', () => ({ title: 'x'.repeat(121) }), 'title'],
      ['a title with a line break', () => ({ title: 'Mon\nsite' }), 'title'],
      ['noindex as a string', () => ({ noindex: 'oui' }), 'noindex'],
      ['an unknown field', () => ({ logo_url: '/uploads/site/x.png' }), 'logo_url'],
    ];
    for (const [why, body, field] of cases) {
      it(why, async () => {
        const privatePage = (await makePage(ctx, { title: 'Privée', slug: 'privee', visibility: 'private' })).id;
        const draftChild = (await makePage(ctx, { title: 'Sous', slug: 'sous', parent_id: privatePage })).id;
        const res = await request(app)
          .put(API)
          .set('Cookie', admin.cookie)
          .send({ tagline: 'jamais écrit', ...body({ privatePage, draftChild }) });
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.details.map((detail: { field: string }) => detail.field)).to.include(field);
        expect(await rowOf()).to.equal(undefined);
      });
    }
  });

  it('refuses a user without settings.manage (403) and without a session (401), changing nothing', async () => {
    const editor = await userWith(ctx, ['admin.access', 'pages.manage']);
    expect((await request(app).get(API).set('Cookie', editor.cookie)).status).to.equal(403);
    expect((await request(app).put(API).set('Cookie', editor.cookie).send({ title: 'Pris' })).status).to.equal(403);
    expect((await request(app).post(`${API}/logo`).set('Cookie', editor.cookie).attach('file', PNG_BYTES, 'logo.png')).status).to.equal(403);
    expect((await request(app).put(API).send({ title: 'Pris' })).status).to.equal(401);
    expect(await rowOf()).to.equal(undefined);
  });

  it('gives the admin role settings.manage (migration)', async () => {
    const owner = await userWith(ctx, 'admin');
    expect((await request(app).put(API).set('Cookie', owner.cookie).send({ title: 'Par le rôle admin' })).status).to.equal(200);
    expect(await rowOf()).to.include({ title: 'Par le rôle admin' });
  });

  it('stores a logo and a social image (201), serves them, and removes them (204) with their files', async () => {
    for (const [path, field] of [
      ['logo', 'logo_url'],
      ['social-image', 'social_image_url'],
    ] as const) {
      const res = await request(app).post(`${API}/${path}`).set('Cookie', admin.cookie).attach('file', PNG_BYTES, 'image.png');
      expect(res.status).to.equal(201);
      const url: string = res.body[field];
      expect(url).to.match(/^\/uploads\/site\/[a-f0-9]{32}\.png$/);
      const served = await binary(app, url);
      expect(served.status).to.equal(200);
      expect(served.headers['content-type']).to.equal('image/png');
      expect(Buffer.compare(served.body as Buffer, PNG_BYTES)).to.equal(0);
      expect(await ctx.uploads.exists(url.slice('/uploads/'.length))).to.equal(true);
      const removed = await request(app).delete(`${API}/${path}`).set('Cookie', admin.cookie);
      expect(removed.status).to.equal(204);
      expect((await request(app).get(API).set('Cookie', admin.cookie)).body[field]).to.equal(null);
      expect(await ctx.uploads.exists(url.slice('/uploads/'.length))).to.equal(false);
    }
    const row = await rowOf();
    expect(row).to.include({ logo: null, social_image: null });
  });

  it('makes a favicon of each size as square PNGs, /favicon.ico of the small ones, and replaces the files of the previous one', async () => {
    const res = await request(app)
      .post(`${API}/favicon`)
      .set('Cookie', admin.cookie)
      .attach('file', await widePng(), 'icone.png');
    expect(res.status).to.equal(201);
    const row = await rowOf();
    expect(Object.keys(row.favicon).sort()).to.deep.equal(['16', '180', '192', '32', '48', '512']);
    expect(res.body.favicon_url).to.equal(row.favicon['512']);
    for (const [size, url] of Object.entries(row.favicon)) {
      const served = await binary(app, url);
      expect(served.status, url).to.equal(200);
      expect(served.headers['content-type']).to.equal('image/png');
      const meta = await sharp(served.body as Buffer).metadata();
      expect([meta.format, meta.width, meta.height]).to.deep.equal(['png', Number(size), Number(size)]);
    }
    const ico = await binary(app, '/favicon.ico');
    expect(ico.status).to.equal(200);
    expect(ico.headers['content-type']).to.equal('image/x-icon');
    const bytes = ico.body as Buffer;
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)]).to.deep.equal([0, 1, 3]);
    expect([bytes[6], bytes[22], bytes[38]]).to.deep.equal([16, 32, 48]);

    // An image whose bytes say PNG but which is cut short: 400, the favicon kept.
    const cut = (await widePng()).subarray(0, 80);
    const broken = await request(app).post(`${API}/favicon`).set('Cookie', admin.cookie).attach('file', cut, 'abime.png');
    expect(broken.status).to.equal(400);
    expect(broken.body.details[0].field).to.equal('file');
    expect((await rowOf()).favicon).to.deep.equal(row.favicon);
    const again = await request(app)
      .post(`${API}/favicon`)
      .set('Cookie', admin.cookie)
      .attach('file', await widePng(), 'autre.png');
    expect(again.status).to.equal(201);
    for (const url of Object.values(row.favicon)) expect(await ctx.uploads.exists(url.slice('/uploads/'.length)), url).to.equal(false);
    expect((await request(app).delete(`${API}/favicon`).set('Cookie', admin.cookie)).status).to.equal(204);
    const fallback = await binary(app, '/favicon.ico');
    expect(fallback.status).to.equal(200);
    expect(Buffer.compare(fallback.body as Buffer, bytes)).to.not.equal(0);
    expect((await rowOf()).favicon).to.equal(null);
  });

  it('refuses an upload that is not an image (415), one without a file and one for no known image (400), writing nothing', async () => {
    const stored = async () => {
      const names: string[] = [];
      for await (const name of ctx.uploads.configured.list()) names.push(name);
      return names;
    };
    const before = await stored();
    const fake = await request(app).post(`${API}/logo`).set('Cookie', admin.cookie).attach('file', Buffer.from('<svg/>'), 'logo.svg');
    expect(fake.status).to.equal(415);
    const none = await request(app).post(`${API}/logo`).set('Cookie', admin.cookie).field('x', '1');
    expect(none.status).to.equal(400);
    const unknown = await request(app).post(`${API}/banner`).set('Cookie', admin.cookie).attach('file', PNG_BYTES, 'banniere.png');
    expect(unknown.status).to.equal(400);
    expect(unknown.body.details[0].field).to.equal('image');
    expect(await stored()).to.deep.equal(before);
    expect(await rowOf()).to.equal(undefined);
  });

  it('forgets the home page when its page is deleted', async () => {
    const page = await makePage(ctx, { title: 'Éphémère', slug: 'ephemere' });
    await request(app).put(API).set('Cookie', admin.cookie).send({ home_page_id: page.id });
    await updatePage(ctx, page.id, { visibility: 'private' });
    await ctx.db('app_pages').where({ id: page.id }).delete();
    expect((await rowOf()).home_page_id).to.equal(null);
  });
});
