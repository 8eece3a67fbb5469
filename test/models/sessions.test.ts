import { expect } from 'chai';
import signature from 'cookie-signature';
import express, { type Express } from 'express';
import type { SessionData } from 'express-session';
import request from 'supertest';
import { ConfigError } from '../../lib/config.js';
import type { AppContext } from '../../lib/context.js';
import { createUserByAdmin } from '../../models/auth/registration.js';
import {
  REFRESHED_SESSION_LIFETIME_MS,
  SESSION_PRUNE_INTERVAL_MS,
  SiteSessionStore,
  createSession,
  listUserSessions,
  publicSessionId,
  revokeAllUserSessions,
  revokeUserSession,
  validateSession,
} from '../../models/auth/sessions.js';
import { SESSION_COOKIE, refreshSessionCookie, setSessionCookie } from '../../middleware/session.js';
import { countStatements } from '../support/statements.js';
import { closeTestApp, contextOf, createTestApp, resetData, testConfig, type App } from '../support/app.js';

describe('sessions', () => {
  let app: App;
  let ctx: AppContext;
  let cookieApp: Express;

  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
    // The two cookie functions of DESIGN §2, called as an external-authentication
    // callback would: with a token, on a request.
    cookieApp = express();
    cookieApp.post('/adopt/:token', async (req, res) => {
      res.json({ adopted: await setSessionCookie(ctx, req, res, req.params.token) });
    });
    cookieApp.post('/refresh/:token', async (req, res) => {
      res.json({ refreshed: await refreshSessionCookie(ctx, req, res, req.params.token) });
    });
  });
  beforeEach(() => resetData(ctx));

  async function someUser() {
    const { user } = await createUserByAdmin(ctx, { email: 'session@example.com', name: 'S', password: 'correct horse' });
    return user;
  }

  it('creates a stored session that validates, and lists it by its public id, never by its token', async () => {
    const user = await someUser();
    const token = await createSession(ctx, user.id, { ip: '203.0.113.7', userAgent: 'Firefox' });
    const valid = await validateSession(ctx, token);
    expect(valid).to.include({ userId: user.id, publicId: publicSessionId(token) });
    const listed = await listUserSessions(ctx, user.id, token);
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ id: publicSessionId(token), ip: '203.0.113.7', user_agent: 'Firefox', current: true });
    expect(JSON.stringify(listed)).to.not.include(token);
  });

  it('does not validate an unknown, empty or expired token', async () => {
    const user = await someUser();
    expect(await validateSession(ctx, 'not-a-session')).to.equal(null);
    expect(await validateSession(ctx, '')).to.equal(null);
    const token = await createSession(ctx, user.id, { maxAgeMs: 60_000 });
    ctx.clock.set(() => Date.now() + 120_000);
    expect(await validateSession(ctx, token)).to.equal(null);
  });

  it('adopts only a token that exists in storage (setSessionCookie)', async () => {
    const user = await someUser();
    const refused = await request(cookieApp).post('/adopt/forged-token-value').expect(200);
    expect(refused.body).to.deep.equal({ adopted: false });
    expect(refused.headers['set-cookie']).to.equal(undefined);

    const token = await createSession(ctx, user.id);
    const adopted = await request(cookieApp).post(`/adopt/${token}`).expect(200);
    expect(adopted.body).to.deep.equal({ adopted: true });
    const cookie = adopted.headers['set-cookie'][0];
    expect(cookie)
      .to.match(new RegExp(`^${SESSION_COOKIE.replace('.', '\\.')}=s%3A`))
      .and.match(/HttpOnly/)
      .and.match(/SameSite=Lax/);
    // The adopted cookie opens the session on the real app.
    const me = await request(app).get('/app/api/users/profile/sessions').set('Cookie', cookie.split(';')[0]).expect(200);
    expect(me.body.items[0]).to.include({ current: true });
  });

  it('extends a valid session and its cookie to 30 days (refreshSessionCookie)', async () => {
    const user = await someUser();
    const token = await createSession(ctx, user.id);
    const response = await request(cookieApp).post(`/refresh/${token}`).expect(200);
    expect(response.body).to.deep.equal({ refreshed: true });
    expect(response.headers['set-cookie'][0]).to.include(`Max-Age=${REFRESHED_SESSION_LIFETIME_MS / 1000}`);
    const row = (await ctx.db('app_auth_sessions').where({ sid: token }).first('expire'))!;
    const days = (row.expire.getTime() - Date.now()) / 86_400_000;
    expect(days).to.be.closeTo(30, 0.01);
    expect((await request(cookieApp).post('/refresh/unknown').expect(200)).body).to.deep.equal({ refreshed: false });
  });

  it('revokes one session by public id only for its owner, or all of them', async () => {
    const user = await someUser();
    const { user: other } = await createUserByAdmin(ctx, { email: 'other@example.com', name: 'O', password: 'correct horse' });
    const first = await createSession(ctx, user.id);
    const second = await createSession(ctx, user.id);
    const third = await createSession(ctx, user.id);
    expect(await revokeUserSession(ctx, other.id, publicSessionId(first))).to.equal(false);
    expect(await validateSession(ctx, first)).to.not.equal(null);
    expect(await revokeUserSession(ctx, user.id, publicSessionId(first))).to.equal(true);
    expect(await validateSession(ctx, first)).to.equal(null);
    expect(await revokeAllUserSessions(ctx, user.id, { exceptSid: third })).to.equal(1);
    expect(await validateSession(ctx, second)).to.equal(null);
    expect(await validateSession(ctx, third)).to.not.equal(null);
  });

  describe('the store (SiteSessionStore)', () => {
    function save(store: SiteSessionStore, sid: string, userId: number, expires: number): Promise<void> {
      const sess = { cookie: { originalMaxAge: 60_000, expires: new Date(expires) }, userId } as unknown as SessionData;
      return new Promise((resolve, reject) => store.set(sid, sess, (error) => (error instanceof Error ? reject(error) : resolve())));
    }

    it('deletes expired sessions with the next session it saves, in the same statement, at most every 15 minutes', async () => {
      const user = await someUser();
      const start = Date.now();
      ctx.clock.set(() => start);
      const expired = await createSession(ctx, user.id, { maxAgeMs: 60_000 });
      ctx.clock.set(() => start + 120_000);
      const store = new SiteSessionStore(ctx);
      const { count } = await countStatements(ctx, () => save(store, 'first-sid', user.id, start + 180_000));
      expect(count).to.equal(1);
      expect(await ctx.db('app_auth_sessions').where({ sid: expired }).first()).to.equal(undefined);

      const later = await createSession(ctx, user.id, { maxAgeMs: 60_000 });
      ctx.clock.set(() => start + 240_000);
      await save(store, 'second-sid', user.id, start + 300_000);
      expect(await ctx.db('app_auth_sessions').where({ sid: later }).first(), 'swept again too soon').to.not.equal(undefined);
      ctx.clock.set(() => start + 120_000 + SESSION_PRUNE_INTERVAL_MS);
      await save(store, 'third-sid', user.id, start + SESSION_PRUNE_INTERVAL_MS + 600_000);
      expect(await ctx.db('app_auth_sessions').where({ sid: later }).first()).to.equal(undefined);
      expect(await ctx.db('app_auth_sessions').where({ sid: 'third-sid' }).first()).to.not.equal(undefined);
    });

    it('keeps the expiry of a stored session when it is saved again (no sliding)', async () => {
      const user = await someUser();
      const store = new SiteSessionStore(ctx);
      const expires = Date.now() + 60_000;
      await save(store, 'kept-sid', user.id, expires);
      await save(store, 'kept-sid', user.id, expires + 86_400_000);
      const row = (await ctx.db('app_auth_sessions').where({ sid: 'kept-sid' }).first('expire'))!;
      expect(row.expire.getTime()).to.equal(expires);
    });
  });

  describe('idle timeout (SESSION_IDLE_TIMEOUT, default 2 days, sliding, beside the absolute 7 days)', () => {
    const HOUR = 3_600_000;
    const DAY = 24 * HOUR;
    let start: number;
    let now: number;
    beforeEach(() => {
      start = Date.now();
      now = start;
      ctx.clock.set(() => now);
    });
    const profile = (cookie: string) => request(app).get('/app/api/users/profile/sessions').set('Cookie', cookie);

    it('ends a session unused for 2 days, though its 7 days are not over; any use before that moves the limit', async () => {
      const user = await someUser();
      const sid = await createSession(ctx, user.id);
      const cookie = `${SESSION_COOKIE}=${encodeURIComponent('s:' + signature.sign(sid, ctx.config.sessionSecret))}`;
      // Used every 47 hours: never idle for 2 days.
      for (let day = 1; day <= 2; day++) {
        now = start + day * 47 * HOUR;
        expect((await profile(cookie)).status, `after ${day * 47} h`).to.equal(200);
      }
      // 2 days and a minute after its last use (5 days and 22 hours after it opened): ended.
      now += 2 * DAY + 60_000;
      expect((await profile(cookie)).status).to.equal(401);
      expect(await validateSession(ctx, sid)).to.equal(null);
      expect(await listUserSessions(ctx, user.id)).to.deep.equal([]);
    });

    it('keeps the absolute limit whatever the use', async () => {
      const user = await someUser();
      const sid = await createSession(ctx, user.id);
      const cookie = `${SESSION_COOKIE}=${encodeURIComponent('s:' + signature.sign(sid, ctx.config.sessionSecret))}`;
      for (let hours = 24; hours < 7 * 24; hours += 24) {
        now = start + hours * HOUR;
        expect((await profile(cookie)).status, `after ${hours} h`).to.equal(200);
      }
      now = start + 7 * DAY + 60_000;
      expect((await profile(cookie)).status).to.equal(401);
    });

    it('deletes idle sessions with the next session saved, as the expired ones', async () => {
      const user = await someUser();
      const idle = await createSession(ctx, user.id);
      now = start + 2 * DAY + 60_000;
      const store = new SiteSessionStore(ctx);
      const sess = { cookie: { originalMaxAge: 60_000, expires: new Date(now + 60_000) }, userId: user.id } as unknown as SessionData;
      await new Promise<void>((resolve, reject) => store.set('fresh-sid', sess, (error) => (error instanceof Error ? reject(error) : resolve())));
      expect(await ctx.db('app_auth_sessions').where({ sid: idle }).first()).to.equal(undefined);
    });

    it('takes its length from SESSION_IDLE_TIMEOUT, from 10 minutes to 30 days', async () => {
      expect(testConfig({ SESSION_IDLE_TIMEOUT: '30m' }).sessionIdleTimeoutMs).to.equal(30 * 60_000);
      expect(testConfig().sessionIdleTimeoutMs).to.equal(2 * DAY);
      for (const bad of ['5m', '31d', 'two days', '2'])
        expect(() => testConfig({ SESSION_IDLE_TIMEOUT: bad }), bad).to.throw(ConfigError, /SESSION_IDLE_TIMEOUT/);
      const short = createTestApp({ SESSION_IDLE_TIMEOUT: '30m' });
      try {
        const shortCtx = contextOf(short);
        shortCtx.clock.set(() => now);
        const user = await someUser();
        const sid = await createSession(shortCtx, user.id);
        const cookie = `${SESSION_COOKIE}=${encodeURIComponent('s:' + signature.sign(sid, shortCtx.config.sessionSecret))}`;
        now = start + 29 * 60_000;
        expect((await request(short).get('/app/api/users/profile/sessions').set('Cookie', cookie)).status).to.equal(200);
        now = start + 29 * 60_000 + 31 * 60_000;
        expect((await request(short).get('/app/api/users/profile/sessions').set('Cookie', cookie)).status).to.equal(401);
      } finally {
        await closeTestApp(short);
      }
    });
  });
});
