import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { caller, logIn } from '../../support/fixtures.js';

describe('profile sessions (/app/api/users/profile/sessions)', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  it('lists the caller’s sessions with public id, address, user agent, dates, and current on its own', async () => {
    const me = await caller(ctx);
    const phone = await logIn(ctx, me, { userAgent: 'Phone browser' });
    await caller(ctx);
    const response = await request(app).get('/app/api/users/profile/sessions').set('Cookie', me.cookie);
    expect(response.status).to.equal(200);
    expect(response.body.total).to.equal(2);
    const byId = Object.fromEntries(response.body.items.map((item: { id: string }) => [item.id, item]));
    expect(byId[me.publicId]).to.include({ current: true, ip: '127.0.0.1' });
    expect(byId[phone.publicId]).to.include({ current: false, user_agent: 'Phone browser' });
    // The device in words and the last activity in French sit beside the raw fields.
    // And how each was opened (issue 27): the method, its provider, the second step, in words too.
    expect(byId[me.publicId]).to.have.keys(
      'id',
      'ip',
      'user_agent',
      'device',
      'created_at',
      'last_seen_at',
      'last_seen_label',
      'expires_at',
      'current',
      'sign_in_method',
      'provider',
      'second_factor',
      'method_label',
    );
    expect(JSON.stringify(response.body)).not.to.include(me.sid);
  });

  it('revokes one of the caller’s sessions, and answers 404 for another user’s session', async () => {
    const me = await caller(ctx);
    const phone = await logIn(ctx, me);
    const stranger = await caller(ctx);
    const theirs = await request(app).delete(`/app/api/users/profile/sessions/${stranger.publicId}`).set('Cookie', me.cookie);
    expect(theirs.status).to.equal(404);
    expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', stranger.cookie)).status).to.equal(200);
    expect((await request(app).delete(`/app/api/users/profile/sessions/${phone.publicId}`).set('Cookie', me.cookie)).status).to.equal(204);
    expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', phone.cookie)).status).to.equal(401);
    expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', me.cookie)).status).to.equal(200);
  });

  it('DELETE without keep_current revokes every session, the caller’s included, and clears the cookie', async () => {
    const me = await caller(ctx);
    await logIn(ctx, me);
    const response = await request(app).delete('/app/api/users/profile/sessions').set('Cookie', me.cookie);
    expect(response.status).to.equal(200);
    expect(response.body.revoked).to.equal(2);
    expect(String(response.headers['set-cookie'])).to.match(/site\.sid=;/);
    expect(await ctx.db('app_auth_sessions').where({ user_id: me.id })).to.have.length(0);
    expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', me.cookie)).status).to.equal(401);
  });

  it('DELETE ?keep_current=true revokes all the others and keeps the caller’s', async () => {
    const me = await caller(ctx);
    const other = await logIn(ctx, me);
    const response = await request(app).delete('/app/api/users/profile/sessions?keep_current=true').set('Cookie', me.cookie);
    expect(response.body.revoked).to.equal(1);
    expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', other.cookie)).status).to.equal(401);
    expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', me.cookie)).status).to.equal(200);
  });

  it('PUT /users/profile changes the caller’s name only', async () => {
    const me = await caller(ctx, { name: 'Before' });
    const response = await request(app).put('/app/api/users/profile').set('Cookie', me.cookie).send({ name: '  After  ' });
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ id: me.id, name: 'After', role: 'user' });
  });
});
