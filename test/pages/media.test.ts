import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { pageMessages } from '../../models/pages/messages.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makePage, PNG_BYTES, userWith } from './helpers.js';

describe('media routes for image blocks (/app/api/admin/media)', () => {
  let app: App;
  let ctx: AppContext;
  let manager: { id: number; cookie: string };
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    manager = await userWith(ctx, ['admin.access', 'pages.manage', 'pages.publish']);
  });

  const upload = (cookie: string, bytes: Buffer = PNG_BYTES, name = 'photo.png') =>
    request(app).post('/app/api/admin/media').set('Cookie', cookie).field('alt', 'Une photo').field('caption', 'Légende').attach('file', bytes, name);

  it('uploads an image, stores it under the upload directory and serves it at its url', async () => {
    const res = await upload(manager.cookie);
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ alt: 'Une photo', caption: 'Légende', mime_type: 'image/png', original_name: 'photo.png', uploaded_by: manager.id });
    expect(res.body.url).to.match(/^\/uploads\/media\/[a-f0-9]{32}\.png$/);
    expect(existsSync(path.join(ctx.config.uploadDir, res.body.filename))).to.equal(true);
    const served = await request(app).get(res.body.url);
    expect(served.status).to.equal(200);
    expect(Buffer.compare(served.body, PNG_BYTES)).to.equal(0);
  });

  it('refuses a file that is not a PNG, JPEG or WebP by its bytes (415) and one over MEDIA_MAX_MB (400 naming the limit: 10 MB by default)', async () => {
    const fake = await upload(manager.cookie, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image.png');
    expect(fake.status).to.equal(415);
    const big = Buffer.concat([PNG_BYTES, Buffer.alloc(10 * 1024 * 1024 + 10)]);
    const refused = await upload(manager.cookie, big);
    expect(refused.status).to.equal(400);
    expect(refused.body).to.include({ code: 'image_too_large', error: 'L’image dépasse la taille maximale de 10 Mo.' });
    expect(await ctx.db('app_pages_media').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('lists, edits alt and caption, and deletes a media together with its file', async () => {
    const created = (await upload(manager.cookie)).body;
    const list = await request(app).get('/app/api/admin/media').set('Cookie', manager.cookie);
    expect(list.status).to.equal(200);
    expect(list.body).to.include({ total: 1, limit: 50, offset: 0 });
    const edited = await request(app).put(`/app/api/admin/media/${created.id}`).set('Cookie', manager.cookie).send({ alt: 'Nouvel alt', caption: '' });
    expect(edited.status).to.equal(200);
    expect(edited.body).to.include({ alt: 'Nouvel alt', caption: '' });
    const removed = await request(app).delete(`/app/api/admin/media/${created.id}`).set('Cookie', manager.cookie);
    expect(removed.status).to.equal(204);
    expect(existsSync(path.join(ctx.config.uploadDir, created.filename))).to.equal(false);
    expect((await request(app).get(`/app/api/admin/media/${created.id}`).set('Cookie', manager.cookie)).status).to.equal(404);
  });

  it('refuses (409) to delete a media that a page uses', async () => {
    const created = (await upload(manager.cookie)).body;
    await makePage(ctx, { title: 'Avec image', blocks: [{ type: 'image', media_id: created.id }] });
    const res = await request(app).delete(`/app/api/admin/media/${created.id}`).set('Cookie', manager.cookie);
    expect(res.status).to.equal(409);
    expect(res.body.error).to.equal(pageMessages.mediaInUse(1));
  });

  it('requires pages.manage (403) and a session (401) on every media route', async () => {
    const viewer = await userWith(ctx, ['admin.access', 'pages.view']);
    expect((await upload(viewer.cookie)).status).to.equal(403);
    expect((await request(app).get('/app/api/admin/media').set('Cookie', viewer.cookie)).status).to.equal(403);
    expect((await request(app).put('/app/api/admin/media/1').set('Cookie', viewer.cookie).send({ alt: 'x' })).status).to.equal(403);
    expect((await request(app).delete('/app/api/admin/media/1').set('Cookie', viewer.cookie)).status).to.equal(403);
    expect((await request(app).get('/app/api/admin/media')).status).to.equal(401);
  });

  it('answers 400 for an id that is not plain decimal digits', async () => {
    const created = (await upload(manager.cookie)).body;
    expect(created.id).to.equal(1);
    for (const id of ['1e0', '1e3', '+1', '01', '0x1', '2147483648']) {
      expect((await request(app).get(`/app/api/admin/media/${id}`).set('Cookie', manager.cookie)).status, `GET ${id}`).to.equal(400);
      expect((await request(app).put(`/app/api/admin/media/${id}`).set('Cookie', manager.cookie).send({ alt: 'x' })).status, `PUT ${id}`).to.equal(400);
      expect((await request(app).delete(`/app/api/admin/media/${id}`).set('Cookie', manager.cookie)).status, `DELETE ${id}`).to.equal(400);
    }
    expect((await ctx.db('app_pages_media').where({ id: 1 }).first())!.alt).to.equal('Une photo');
  });

  it('refuses unknown fields (JSON and multipart), unknown query parameters and NUL in a text (400)', async () => {
    const created = (await upload(manager.cookie)).body;
    const put = (body: object) => request(app).put(`/app/api/admin/media/${created.id}`).set('Cookie', manager.cookie).send(body);
    expect((await put({ alt: 'x', filename: 'media/../../etc/passwd' })).status).to.equal(400);
    expect((await put({ alt: 'a\u0000b' })).status).to.equal(400);
    expect((await request(app).get('/app/api/admin/media?page=2').set('Cookie', manager.cookie)).status).to.equal(400);
    const extra = await request(app).post('/app/api/admin/media').set('Cookie', manager.cookie).field('owner', '1').attach('file', PNG_BYTES, 'x.png');
    expect(extra.status).to.equal(400);
    expect(await ctx.db('app_pages_media').count({ n: '*' })).to.deep.equal([{ n: 1 }]);
    expect((await ctx.db('app_pages_media').first())!.alt).to.equal('Une photo');
  });
});
