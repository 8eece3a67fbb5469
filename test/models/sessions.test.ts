import { expect } from 'chai';
import express, { type Express } from 'express';
import request from 'supertest';
import { db } from '../../lib/db.js';
import { setClock } from '../../lib/clock.js';
import { createUserByAdmin } from '../../models/auth/registration.js';
import {
  REFRESHED_SESSION_LIFETIME_MS,
  createSession,
  listUserSessions,
  publicSessionId,
  revokeAllUserSessions,
  revokeUserSession,
  validateSession,
} from '../../models/auth/sessions.js';
import { SESSION_COOKIE, refreshSessionCookie, setSessionCookie } from '../../middleware/session.js';
import { createTestApp, resetData } from '../support/app.js';

describe('sessions', () => {
  let app: Express;
  let cookieApp: Express;

  before(() => {
    app = createTestApp();
    // The two cookie functions of DESIGN §2, called as an external-authentication
    // callback would: with a token, on a request.
    cookieApp = express();
    cookieApp.locals.config = app.locals.config;
    cookieApp.post('/adopt/:token', async (req, res) => {
      res.json({ adopted: await setSessionCookie(req, res, req.params.token) });
    });
    cookieApp.post('/refresh/:token', async (req, res) => {
      res.json({ refreshed: await refreshSessionCookie(req, res, req.params.token) });
    });
  });
  beforeEach(resetData);

  async function someUser() {
    const { user } = await createUserByAdmin({ email: 'session@example.com', name: 'S', password: 'correct horse' });
    return user;
  }

  it('creates a stored session that validates, and lists it by its public id, never by its token', async () => {
    const user = await someUser();
    const token = await createSession(user.id, { ip: '203.0.113.7', userAgent: 'Firefox' });
    const valid = await validateSession(token);
    expect(valid).to.include({ userId: user.id, publicId: publicSessionId(token) });
    const listed = await listUserSessions(user.id, token);
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ id: publicSessionId(token), ip: '203.0.113.7', user_agent: 'Firefox', current: true });
    expect(JSON.stringify(listed)).to.not.include(token);
  });

  it('does not validate an unknown, empty or expired token', async () => {
    const user = await someUser();
    expect(await validateSession('not-a-session')).to.equal(null);
    expect(await validateSession('')).to.equal(null);
    const token = await createSession(user.id, { maxAgeMs: 60_000 });
    setClock(() => Date.now() + 120_000);
    expect(await validateSession(token)).to.equal(null);
  });

  it('adopts only a token that exists in storage (setSessionCookie)', async () => {
    const user = await someUser();
    const refused = await request(cookieApp).post('/adopt/forged-token-value').expect(200);
    expect(refused.body).to.deep.equal({ adopted: false });
    expect(refused.headers['set-cookie']).to.equal(undefined);

    const token = await createSession(user.id);
    const adopted = await request(cookieApp).post(`/adopt/${token}`).expect(200);
    expect(adopted.body).to.deep.equal({ adopted: true });
    const cookie = adopted.headers['set-cookie'][0];
    expect(cookie).to.match(new RegExp(`^${SESSION_COOKIE.replace('.', '\\.')}=s%3A`)).and.match(/HttpOnly/).and.match(/SameSite=Lax/);
    // The adopted cookie opens the session on the real app.
    const me = await request(app).get('/app/api/users/profile/sessions').set('Cookie', cookie.split(';')[0]).expect(200);
    expect(me.body.items[0]).to.include({ current: true });
  });

  it('extends a valid session and its cookie to 30 days (refreshSessionCookie)', async () => {
    const user = await someUser();
    const token = await createSession(user.id);
    const response = await request(cookieApp).post(`/refresh/${token}`).expect(200);
    expect(response.body).to.deep.equal({ refreshed: true });
    expect(response.headers['set-cookie'][0]).to.include(`Max-Age=${REFRESHED_SESSION_LIFETIME_MS / 1000}`);
    const row = await db()('app_auth_sessions').where({ sid: token }).first('expire');
    const days = (row.expire.getTime() - Date.now()) / 86_400_000;
    expect(days).to.be.closeTo(30, 0.01);
    expect((await request(cookieApp).post('/refresh/unknown').expect(200)).body).to.deep.equal({ refreshed: false });
  });

  it('revokes one session by public id only for its owner, or all of them', async () => {
    const user = await someUser();
    const { user: other } = await createUserByAdmin({ email: 'other@example.com', name: 'O', password: 'correct horse' });
    const first = await createSession(user.id);
    const second = await createSession(user.id);
    const third = await createSession(user.id);
    expect(await revokeUserSession(other.id, publicSessionId(first))).to.equal(false);
    expect(await validateSession(first)).to.not.equal(null);
    expect(await revokeUserSession(user.id, publicSessionId(first))).to.equal(true);
    expect(await validateSession(first)).to.equal(null);
    expect(await revokeAllUserSessions(user.id, { exceptSid: third })).to.equal(1);
    expect(await validateSession(second)).to.equal(null);
    expect(await validateSession(third)).to.not.equal(null);
  });
});
