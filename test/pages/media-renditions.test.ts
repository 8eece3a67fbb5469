// Responsive images (issue 25, item 2) in one process: a 4000 × 3000 JPEG uploaded gets its
// size at once and its renditions from the background work, once; the published page
// shows the original until they exist, then a <picture> with AVIF and WebP srcsets (and
// its cached HTML is dropped when they appear); renditions are served with immutable
// caching; the focal point drives the crops; a 60-megapixel image and a file over
// MEDIA_MAX_MB are refused with 400 naming the limit; a media deleted takes its files
// along; work stopped or abandoned half-way is completed by the next claim.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { claimRenditionJob } from '../../models/pages/media-jobs.js';
import { makeDueRenditions, renditionWidths } from '../../services/pages-media-renditions.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { flatPng, photoJpeg } from './images.js';
import { makePage, userWith } from './helpers.js';

const STORED = /^media\/[a-f0-9]{32}-w(\d+)\.(avif|webp|jpg)$/;

describe('responsive images: renditions of the media library', function () {
  this.timeout(240_000);
  let app: App;
  let ctx: AppContext;
  let manager: { id: number; cookie: string };
  let photo: Buffer;

  before(async () => {
    app = createTestApp();
    ctx = contextOf(app);
    photo = await photoJpeg(4000, 3000);
  });
  beforeEach(async () => {
    await resetData(ctx);
    manager = await userWith(ctx, ['admin.access', 'pages.manage', 'pages.publish']);
  });

  const upload = (bytes: Buffer, name = 'paysage.jpg', on: App = app, cookie = manager.cookie) =>
    request(on).post('/app/api/admin/media').set('Cookie', cookie).field('alt', 'Un paysage').attach('file', bytes, name);

  /** The stored files of a media (its original's name and what was made from it); the upload directory outlives resetData. */
  async function storedNames(media: { filename: string }): Promise<string[]> {
    const base = media.filename.slice(0, media.filename.lastIndexOf('.'));
    const names: string[] = [];
    for await (const name of ctx.uploads.configured.list()) if (name.startsWith(base)) names.push(name);
    return names;
  }

  it('records the size at upload, makes 5 widths × AVIF, WebP and JPEG exactly once, and lists them in the media JSON', async () => {
    const created = await upload(photo);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ width: 4000, height: 3000 });
    expect(created.body.focal_point).to.deep.equal({ x: 50, y: 50 });
    expect(created.body.renditions).to.deep.equal([]);
    expect(await ctx.db('app_pages_media_jobs').where({ media_id: created.body.id }).first()).to.include({ done_at: null, attempts: 0 });

    expect(await makeDueRenditions(ctx)).to.equal(1);
    expect(await makeDueRenditions(ctx), 'nothing left to do').to.equal(0);
    const job = await ctx.db('app_pages_media_jobs').where({ media_id: created.body.id }).first();
    expect(job!.attempts).to.equal(1);
    expect(job!.done_at).to.be.instanceOf(Date);

    const shown = (await request(app).get(`/app/api/admin/media/${created.body.id}`).set('Cookie', manager.cookie)).body;
    expect(shown.renditions).to.have.length(15);
    const widths = [...new Set(shown.renditions.map((r: { width: number }) => r.width))];
    expect(widths).to.deep.equal([320, 640, 960, 1280, 1920]);
    for (const rendition of shown.renditions) {
      expect(rendition.height).to.equal(Math.round((rendition.width * 3) / 4));
      expect(['avif', 'webp', 'jpeg']).to.include(rendition.format);
      expect(rendition.url).to.match(/^\/uploads\/media\/[a-f0-9]{32}-w\d+\.(avif|webp|jpg)$/);
    }
    expect(shown.crops.social).to.include({ width: 1200, height: 630 });
    expect(shown.crops.square).to.include({ width: 320, height: 320 });
    const files = await storedNames(created.body);
    expect(files.filter((name) => STORED.test(name))).to.have.length(15);
    expect(files).to.have.length(1 + 15 + 2);
  });

  it('makes the widths up to the original’s: a 1200-pixel picture gets 320, 640, 960 and 1200 (its own width in AVIF and WebP only)', async () => {
    expect(renditionWidths(4000)).to.deep.equal([320, 640, 960, 1280, 1920]);
    expect(renditionWidths(1920)).to.deep.equal([320, 640, 960, 1280, 1920]);
    expect(renditionWidths(1200)).to.deep.equal([320, 640, 960, 1200]);
    expect(renditionWidths(200)).to.deep.equal([200]);
    const created = await upload(await photoJpeg(1200, 900));
    await makeDueRenditions(ctx);
    const shown = (await request(app).get(`/app/api/admin/media/${created.body.id}`).set('Cookie', manager.cookie)).body;
    const jpeg = shown.renditions.filter((r: { format: string }) => r.format === 'jpeg').map((r: { width: number }) => r.width);
    const avif = shown.renditions.filter((r: { format: string }) => r.format === 'avif').map((r: { width: number }) => r.width);
    expect(jpeg).to.deep.equal([320, 640, 960]);
    expect(avif).to.deep.equal([320, 640, 960, 1200]);
  });

  it('serves the original on the published page until the renditions exist, then a <picture> with AVIF and WebP srcsets, width and height', async () => {
    const first = await upload(photo);
    const second = await upload(photo, 'autre.jpg');
    await makePage(ctx, {
      title: 'Paysages',
      slug: 'paysages',
      blocks: [
        { type: 'image', media_id: first.body.id },
        { type: 'paragraph', text: 'Entre deux images.' },
        { type: 'image', media_id: second.body.id },
      ],
    });
    const before = await request(app).get('/paysages');
    expect(before.status).to.equal(200);
    expect(before.text).not.to.include('srcset');
    expect(before.text).to.include(`<img src="${first.body.url}" width="4000" height="3000" alt="Un paysage" fetchpriority="high" decoding="async">`);
    expect(before.text).to.include(`<img src="${second.body.url}" width="4000" height="3000" alt="Un paysage" loading="lazy" decoding="async">`);

    expect(await makeDueRenditions(ctx)).to.equal(2);
    // The cached page was dropped when the renditions were recorded (media:<id>).
    const after = await request(app).get('/paysages');
    const pictures = after.text.match(/<picture>[\s\S]*?<\/picture>/g) ?? [];
    expect(pictures).to.have.length(2);
    for (const picture of pictures) {
      const avif = picture.match(/<source type="image\/avif" srcset="([^"]+)" sizes="[^"]+">/);
      const webp = picture.match(/<source type="image\/webp" srcset="([^"]+)" sizes="[^"]+">/);
      expect(avif, picture).to.not.equal(null);
      expect(webp, picture).to.not.equal(null);
      expect(avif![1].match(/ \d+w/g)!.length).to.be.at.least(3);
      expect(webp![1].match(/ \d+w/g)!.length).to.be.at.least(3);
      expect(picture).to.match(/<img src="[^"]+" srcset="[^"]+ 320w, [^"]+ 4000w" sizes="[^"]+" width="4000" height="3000" alt="Un paysage"/);
      expect(picture).to.include('decoding="async"');
    }
    expect(pictures[0]).to.include('fetchpriority="high"').and.not.include('loading="lazy"');
    expect(pictures[1]).to.include('loading="lazy"');
    // The shared link's card: the 1200 × 630 crop of the first picture.
    const social = (await request(app).get(`/app/api/admin/media/${first.body.id}`).set('Cookie', manager.cookie)).body.crops.social;
    expect(after.text).to.include(`<meta property="og:image" content="http://site.test${social.url}">`);
    expect(after.text).to.include('<meta property="og:image:width" content="1200">');
  });

  it('serves a WebP and an AVIF rendition with their content type and immutable caching', async () => {
    const created = await upload(photo);
    await makeDueRenditions(ctx);
    const { renditions } = (await request(app).get(`/app/api/admin/media/${created.body.id}`).set('Cookie', manager.cookie)).body;
    for (const [format, type] of [
      ['webp', 'image/webp'],
      ['avif', 'image/avif'],
    ]) {
      const rendition = renditions.find((r: { format: string; width: number }) => r.format === format && r.width === 640);
      const served = await request(app).get(rendition.url);
      expect(served.status).to.equal(200);
      expect(served.headers['content-type']).to.equal(type);
      expect(served.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      expect(served.body.length).to.be.above(100);
    }
  });

  it('moves the focal point (PUT focal_point): the crops are made again around it, the old ones removed', async () => {
    const created = await upload(photo);
    await makeDueRenditions(ctx);
    const old = (await request(app).get(`/app/api/admin/media/${created.body.id}`).set('Cookie', manager.cookie)).body.crops;
    const moved = await request(app)
      .put(`/app/api/admin/media/${created.body.id}`)
      .set('Cookie', manager.cookie)
      .send({ focal_point: { x: 80, y: 20 } });
    expect(moved.status).to.equal(200);
    expect(moved.body.focal_point).to.deep.equal({ x: 80, y: 20 });
    // Until made again, no crop is offered for the new point.
    expect(moved.body.crops).to.deep.equal({ social: null, square: null });
    expect((await ctx.db('app_pages_media_jobs').where({ media_id: created.body.id }).first())!.done_at).to.equal(null);
    expect(await makeDueRenditions(ctx)).to.equal(1);
    const now = (await request(app).get(`/app/api/admin/media/${created.body.id}`).set('Cookie', manager.cookie)).body;
    expect(now.crops.social.url).to.match(/-og-80-20\.jpg$/);
    expect(now.crops.square.url).to.match(/-sq-80-20\.webp$/);
    expect(now.renditions).to.have.length(15);
    expect((await request(app).get(old.social.url)).status).to.equal(404);
    expect((await request(app).get(now.crops.social.url)).headers['content-type']).to.equal('image/jpeg');

    const refused = await request(app)
      .put(`/app/api/admin/media/${created.body.id}`)
      .set('Cookie', manager.cookie)
      .send({ focal_point: { x: 101, y: 20 } });
    expect(refused.status).to.equal(400);
  });

  it('refuses a 60-megapixel image with 400 naming the limit, and stores nothing', async () => {
    const huge = await flatPng(10_000, 6_000);
    const refused = await upload(huge, 'immense.png');
    expect(refused.status).to.equal(400);
    expect(refused.body.code).to.equal('image_too_many_pixels');
    expect(refused.body.error).to.equal('L’image fait 10\u202f000 × 6\u202f000 pixels\u00a0: 50 mégapixels au plus sont acceptés.');
    expect(await ctx.db('app_pages_media').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('refuses a file over MEDIA_MAX_MB with 400 naming the limit', async () => {
    const small = createTestApp({ MEDIA_MAX_MB: '0.5' });
    try {
      const me = await userWith(contextOf(small), ['admin.access', 'pages.manage']);
      const big = Buffer.concat([photo, Buffer.alloc(600 * 1024)]);
      const refused = await upload(big, 'lourde.jpg', small, me.cookie);
      expect(refused.status).to.equal(400);
      expect(refused.body).to.include({ code: 'image_too_large', error: 'L’image dépasse la taille maximale de 0,5 Mo.' });
      expect((await upload(photo, 'legere.jpg', small, me.cookie)).status).to.equal(201);
    } finally {
      await closeTestApp(small);
    }
  });

  it('deletes the renditions and crops with the media', async () => {
    const created = await upload(photo);
    await makeDueRenditions(ctx);
    expect(await storedNames(created.body)).to.have.length(18);
    const deleted = await request(app).delete(`/app/api/admin/media/${created.body.id}`).set('Cookie', manager.cookie);
    expect(deleted.status).to.equal(204);
    expect(await storedNames(created.body)).to.deep.equal([]);
    expect(await ctx.db('app_pages_media_jobs').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('completes work stopped half-way (a restart) without making a file twice, and work whose lease ran out (a crash)', async () => {
    const created = await upload(photo);
    // A stop after a few files: the claim is given back at once.
    let checks = 0;
    expect(await makeDueRenditions(ctx, {}, () => ++checks > 4)).to.equal(1);
    const partial = await storedNames(created.body);
    expect(partial.length).to.be.within(2, 17);
    const job = await ctx.db('app_pages_media_jobs').where({ media_id: created.body.id }).first();
    expect(job).to.include({ done_at: null, leased_until: null, lease_token: null, attempts: 0 });
    const writtenBefore = new Map<string, number>();
    for (const name of partial) writtenBefore.set(name, (await ctx.uploads.open(name))!.modified.getTime());

    // A process dies holding the claim: its lease runs out and the next claim takes it.
    const dead = await claimRenditionJob(ctx, 300);
    expect(dead?.mediaId).to.equal(created.body.id);
    expect(await makeDueRenditions(ctx), 'the lease still holds').to.equal(0);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await makeDueRenditions(ctx)).to.equal(1);

    const done = await ctx.db('app_pages_media_jobs').where({ media_id: created.body.id }).first();
    expect(done!.done_at).to.be.instanceOf(Date);
    expect(done!.attempts).to.equal(2);
    expect(await storedNames(created.body)).to.have.length(18);
    for (const [name, modified] of writtenBefore) expect((await ctx.uploads.open(name))!.modified.getTime(), name).to.equal(modified);
    const shown = (await request(app).get(`/app/api/admin/media/${created.body.id}`).set('Cookie', manager.cookie)).body;
    expect(shown.renditions).to.have.length(15);
  });
});
