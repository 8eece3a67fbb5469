import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { activeConfig } from '../../lib/config.js';
import { db } from '../../lib/db.js';
import { pageMessages } from '../../models/pages/messages.js';
import { createTestApp, resetData } from '../support/app.js';
import { makePage, PNG_BYTES, userWith } from './helpers.js';

describe('media routes for image blocks (/app/api/admin/media)', () => {
  let app: Express;
  let manager: { id: number; cookie: string };
  before(() => {
    app = createTestApp();
  });
  beforeEach(async () => {
    await resetData();
    manager = await userWith(['admin.access', 'pages.manage']);
  });

  const upload = (cookie: string, bytes: Buffer = PNG_BYTES, name = 'photo.png') =>
    request(app).post('/app/api/admin/media').set('Cookie', cookie).field('alt', 'Une photo').field('caption', 'Légende').attach('file', bytes, name);

  it('uploads an image, stores it under the upload directory and serves it at its url', async () => {
    const res = await upload(manager.cookie);
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ alt: 'Une photo', caption: 'Légende', mime_type: 'image/png', original_name: 'photo.png', uploaded_by: manager.id });
    expect(res.body.url).to.match(/^\/uploads\/media\/[a-f0-9]{32}\.png$/);
    expect(existsSync(path.join(activeConfig().uploadDir, res.body.filename))).to.equal(true);
    const served = await request(app).get(res.body.url);
    expect(served.status).to.equal(200);
    expect(Buffer.compare(served.body, PNG_BYTES)).to.equal(0);
  });

  it('refuses a file that is not a PNG, JPEG or WebP by its bytes (415) and one over 2 MB (413)', async () => {
    const fake = await upload(manager.cookie, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image.png');
    expect(fake.status).to.equal(415);
    const big = Buffer.concat([PNG_BYTES, Buffer.alloc(2 * 1024 * 1024 + 10)]);
    expect((await upload(manager.cookie, big)).status).to.equal(413);
    expect(await db()('app_pages_media').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
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
    expect(existsSync(path.join(activeConfig().uploadDir, created.filename))).to.equal(false);
    expect((await request(app).get(`/app/api/admin/media/${created.id}`).set('Cookie', manager.cookie)).status).to.equal(404);
  });

  it('refuses (409) to delete a media that a page uses', async () => {
    const created = (await upload(manager.cookie)).body;
    await makePage({ title: 'Avec image', blocks: [{ type: 'image', media_id: created.id }] });
    const res = await request(app).delete(`/app/api/admin/media/${created.id}`).set('Cookie', manager.cookie);
    expect(res.status).to.equal(409);
    expect(res.body.error).to.equal(pageMessages.mediaInUse(1));
  });

  it('requires pages.manage (403) and a session (401) on every media route', async () => {
    const viewer = await userWith(['admin.access', 'pages.view']);
    expect((await upload(viewer.cookie)).status).to.equal(403);
    expect((await request(app).get('/app/api/admin/media').set('Cookie', viewer.cookie)).status).to.equal(403);
    expect((await request(app).put('/app/api/admin/media/1').set('Cookie', viewer.cookie).send({ alt: 'x' })).status).to.equal(403);
    expect((await request(app).delete('/app/api/admin/media/1').set('Cookie', viewer.cookie)).status).to.equal(403);
    expect((await request(app).get('/app/api/admin/media')).status).to.equal(401);
  });
});
