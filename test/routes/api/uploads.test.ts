import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { JPEG_BYTES, PNG_1X1, WEBP_BYTES, caller } from '../../support/fixtures.js';

function storedFiles(ctx: AppContext): string[] {
  const directory = path.join(ctx.config.uploadDir, 'avatars');
  return existsSync(directory) ? readdirSync(directory) : [];
}

describe('profile picture (POST/DELETE /app/api/users/profile/picture, GET /uploads/*)', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  it('stores a real PNG under a generated name, serves it with its type and nosniff, and removes it when replaced', async () => {
    const me = await caller(ctx);
    const before = storedFiles(ctx);
    const uploaded = await request(app)
      .post('/app/api/users/profile/picture')
      .set('Cookie', me.cookie)
      .attach('picture', PNG_1X1, { filename: 'me.png', contentType: 'image/png' });
    expect(uploaded.status).to.equal(200);
    expect(uploaded.body.image).to.match(/^\/uploads\/avatars\/[a-f0-9]{32}\.png$/);
    expect((await ctx.db('app_auth_users').where({ id: me.id }).first())!.image).to.equal(uploaded.body.image);
    const served = await request(app).get(uploaded.body.image);
    expect(served.status).to.equal(200);
    expect(served.headers['content-type']).to.equal('image/png');
    expect(served.headers['x-content-type-options']).to.equal('nosniff');
    expect(Buffer.compare(served.body, PNG_1X1)).to.equal(0);

    const replaced = await request(app)
      .post('/app/api/users/profile/picture')
      .set('Cookie', me.cookie)
      .attach('picture', JPEG_BYTES, { filename: 'other.bin' });
    expect(replaced.status).to.equal(200);
    expect(replaced.body.image).to.match(/\.jpg$/);
    expect((await request(app).get(uploaded.body.image)).status).to.equal(404);
    expect((await request(app).get(replaced.body.image)).headers['content-type']).to.equal('image/jpeg');
    expect(storedFiles(ctx).length).to.equal(before.length + 1);

    expect((await request(app).delete('/app/api/users/profile/picture').set('Cookie', me.cookie)).status).to.equal(204);
    expect((await ctx.db('app_auth_users').where({ id: me.id }).first())!.image).to.equal(null);
    expect(storedFiles(ctx).length).to.equal(before.length);
  });

  it('accepts WebP by its magic bytes whatever the file name says', async () => {
    const me = await caller(ctx);
    const response = await request(app)
      .post('/app/api/users/profile/picture')
      .set('Cookie', me.cookie)
      .attach('picture', WEBP_BYTES, { filename: 'photo.png', contentType: 'image/png' });
    expect(response.status).to.equal(200);
    expect(response.body.image).to.match(/\.webp$/);
  });

  it('refuses a file over 2 MB with 413 and leaves nothing on disk', async () => {
    const me = await caller(ctx);
    const before = storedFiles(ctx);
    const big = Buffer.concat([PNG_1X1, Buffer.alloc(2 * 1024 * 1024)]);
    const response = await request(app)
      .post('/app/api/users/profile/picture')
      .set('Cookie', me.cookie)
      .attach('picture', big, { filename: 'big.png', contentType: 'image/png' });
    expect(response.status).to.equal(413);
    expect(response.body.code).to.equal('payload_too_large');
    expect(storedFiles(ctx)).to.deep.equal(before);
    expect((await ctx.db('app_auth_users').where({ id: me.id }).first())!.image).to.equal(null);
  });

  it('refuses a .png that is really HTML with 415, and stores nothing', async () => {
    const me = await caller(ctx);
    const before = storedFiles(ctx);
    const html = Buffer.from('<!doctype html><script>alert(1)</script>');
    const response = await request(app)
      .post('/app/api/users/profile/picture')
      .set('Cookie', me.cookie)
      .attach('picture', html, { filename: 'evil.png', contentType: 'image/png' });
    expect(response.status).to.equal(415);
    expect(storedFiles(ctx)).to.deep.equal(before);
  });

  it('refuses a JSON body, a second file, another field name and a missing file', async () => {
    const me = await caller(ctx);
    expect((await request(app).post('/app/api/users/profile/picture').set('Cookie', me.cookie).send({ picture: 'x' })).status).to.equal(415);
    const two = await request(app)
      .post('/app/api/users/profile/picture')
      .set('Cookie', me.cookie)
      .attach('picture', PNG_1X1, 'a.png')
      .attach('picture', PNG_1X1, 'b.png');
    expect(two.status).to.equal(400);
    expect((await request(app).post('/app/api/users/profile/picture').set('Cookie', me.cookie).attach('avatar', PNG_1X1, 'a.png')).status).to.equal(400);
    expect((await request(app).post('/app/api/users/profile/picture').set('Cookie', me.cookie).field('note', 'x')).status).to.equal(400);
  });

  it('serves nothing outside the upload folder', async () => {
    for (const probe of ['/uploads/../package.json', '/uploads/avatars/..%2f..%2fpackage.json', '/uploads/avatars/.hidden', '/uploads/avatars/notafile.txt']) {
      const response = await request(app).get(probe);
      expect(response.status, probe).to.equal(404);
    }
  });
});
