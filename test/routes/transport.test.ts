// Transport and session hardening: Strict-Transport-Security in production over HTTPS
// (directly or through the trusted proxy), cookies named `__Host-` there (an old cookie
// of a session opened before the upgrade adopted once), a Permissions-Policy on every
// answer, and If-Range honoured only with a strong validator (RFC 9110 §13.1.5).
// The tests reach the app over plain HTTP with X-Forwarded-Proto from loopback, as
// nginx does; Secure cookies are carried by hand (a cookie jar keeps them for https).
import { expect } from 'chai';
import request from 'supertest';
import { ConfigError } from '../../lib/config.js';
import type { AppContext } from '../../lib/context.js';
import { closeTestApp, contextOf, createTestApp, resetData, testConfig, type App } from '../support/app.js';
import { caller, logIn, makeUser, PASSWORD, PNG_1X1 } from '../support/fixtures.js';
import { hiddenField, useFakeClock } from '../support/form-client.js';
import { enrolTwoFactor } from '../support/two-factor.js';

/** A production app behind nginx on the same host: HTTPS arrives as X-Forwarded-Proto. */
const PRODUCTION = { NODE_ENV: 'production', PASSWORD_HASH_COST: '11', MAIL_OUTBOX: 'true', APP_TRUST_PROXY: 'loopback' };
const HTTPS = { 'X-Forwarded-Proto': 'https' };

/** The Set-Cookie lines of an answer, by cookie name. */
function setCookies(response: request.Response): Map<string, string> {
  const lines = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
  return new Map(lines.map((line) => [line.slice(0, line.indexOf('=')), line]));
}

/** `name=value` of a Set-Cookie line. */
function pair(line: string | undefined): string {
  expect(line, 'a Set-Cookie line').to.be.a('string');
  return line!.split(';')[0];
}

describe('transport and session hardening', () => {
  const clock = useFakeClock();

  describe('Strict-Transport-Security', () => {
    const apps: App[] = [];
    const app = (env: Record<string, string>) => {
      const created = createTestApp(env);
      apps.push(created);
      return created;
    };
    after(async () => {
      for (const created of apps) await closeTestApp(created);
    });

    it('is sent in production over HTTPS through the trusted proxy, a year by default, on pages and assets', async () => {
      const production = app(PRODUCTION);
      for (const path of ['/auth', '/assets/css/admin.css', '/favicon.ico', '/nowhere']) {
        const response = await request(production).get(path).set(HTTPS);
        expect(response.headers['strict-transport-security'], path).to.equal('max-age=31536000');
      }
    });

    it('is never sent over plain HTTP, from an untrusted X-Forwarded-Proto, nor outside production', async () => {
      expect((await request(app(PRODUCTION)).get('/auth')).headers['strict-transport-security']).to.equal(undefined);
      const noProxy = app({ ...PRODUCTION, APP_TRUST_PROXY: '' });
      expect((await request(noProxy).get('/auth').set(HTTPS)).headers['strict-transport-security']).to.equal(undefined);
      const development = app({ APP_TRUST_PROXY: 'loopback' });
      expect((await request(development).get('/auth').set(HTTPS)).headers['strict-transport-security']).to.equal(undefined);
    });

    it('takes its duration from HSTS_MAX_AGE; `off` sends none, 0 tells browsers to forget an earlier one', async () => {
      expect(
        (
          await request(app({ ...PRODUCTION, HSTS_MAX_AGE: '600' }))
            .get('/auth')
            .set(HTTPS)
        ).headers['strict-transport-security'],
      ).to.equal('max-age=600');
      expect(
        (
          await request(app({ ...PRODUCTION, HSTS_MAX_AGE: '0' }))
            .get('/auth')
            .set(HTTPS)
        ).headers['strict-transport-security'],
      ).to.equal('max-age=0');
      expect(
        (
          await request(app({ ...PRODUCTION, HSTS_MAX_AGE: 'off' }))
            .get('/auth')
            .set(HTTPS)
        ).headers['strict-transport-security'],
      ).to.equal(undefined);
      for (const bad of ['-1', 'a year', '63072001']) expect(() => testConfig({ HSTS_MAX_AGE: bad }), bad).to.throw(ConfigError, /HSTS_MAX_AGE/);
    });
  });

  describe('Permissions-Policy', () => {
    let app: App;
    before(() => {
      app = createTestApp();
    });

    it('turns off the browser features the site never uses, on pages, assets and errors', async () => {
      for (const path of ['/auth', '/assets/css/admin.css', '/nowhere', '/app/api/pages']) {
        const policy = (await request(app).get(path)).headers['permissions-policy'];
        expect(policy, path).to.be.a('string');
        for (const feature of ['camera=()', 'microphone=()', 'geolocation=()', 'payment=()', 'usb=()']) expect(policy, path).to.include(feature);
      }
    });
  });

  describe('__Host- cookies in production over HTTPS', () => {
    let app: App;
    let ctx: AppContext;
    before(() => {
      app = createTestApp(PRODUCTION);
      ctx = contextOf(app);
    });
    beforeEach(() => resetData(ctx));
    after(() => closeTestApp(app));

    /** The login form over HTTPS: its CSRF cookie, then the POST 2 s later. */
    async function logInThroughForm(email: string): Promise<request.Response> {
      clock.install(app);
      const page = await request(app).get('/auth/login').set(HTTPS);
      const csrf = setCookies(page).get('__Host-site.csrf');
      clock.advance(2000);
      return request(app)
        .post('/auth/login')
        .set(HTTPS)
        .set('Cookie', pair(csrf))
        .type('form')
        .send({ _csrf: hiddenField(page.text, '_csrf'), _t: hiddenField(page.text, '_t'), _hp: '', email, password: PASSWORD });
    }

    it('names every cookie __Host- (Secure, Path=/, no Domain) and opens the session under that name only', async () => {
      const user = await makeUser(ctx, { email: 'ada@example.com' });
      const page = await request(app).get('/auth/login').set(HTTPS);
      const csrf = setCookies(page).get('__Host-site.csrf');
      expect(csrf).to.match(/^__Host-site\.csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
      expect(setCookies(page).has('site.csrf')).to.equal(false);

      const login = await logInThroughForm(user.email);
      expect(login.status).to.equal(303);
      const cookies = setCookies(login);
      // The session, and the known-browser cookie a complete sign-in sets (account budgets).
      expect([...cookies.keys()].sort()).to.deep.equal(['__Host-site.device', '__Host-site.sid']);
      expect(cookies.get('__Host-site.device')).to.match(/^__Host-site\.device=[^;]+; Max-Age=\d+; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
      const session = cookies.get('__Host-site.sid')!;
      expect(session).to.match(/; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
      expect(session).not.to.match(/Domain=/i);
      expect((await request(app).get('/account').set(HTTPS).set('Cookie', pair(session))).status).to.equal(200);
    });

    it('refuses that session under the old name (a cookie planted from a sibling domain or over HTTP)', async () => {
      const user = await makeUser(ctx, { email: 'ada@example.com' });
      const session = pair(setCookies(await logInThroughForm(user.email)).get('__Host-site.sid'));
      const planted = session.replace('__Host-site.sid=', 'site.sid=');
      const refused = await request(app).get('/account').set(HTTPS).set('Cookie', planted);
      expect(refused.status).to.equal(303);
      expect(refused.headers.location).to.match(/^\/auth\/login/);
      // The session itself is untouched under its own name.
      expect((await request(app).get('/account').set(HTTPS).set('Cookie', session)).status).to.equal(200);
    });

    it('keeps a session opened before the upgrade: its old cookie is adopted once, sent back as __Host-, the old one cleared', async () => {
      const before = await caller(ctx, { email: 'old@example.com' }); // a session and its `site.sid` cookie, as issued before
      const adopted = await request(app).get('/account').set(HTTPS).set('Cookie', before.cookie);
      expect(adopted.status).to.equal(200);
      const cookies = setCookies(adopted);
      expect(pair(cookies.get('__Host-site.sid'))).to.equal(before.cookie.replace('site.sid=', '__Host-site.sid='));
      expect(cookies.get('__Host-site.sid')).to.match(/; Secure;/);
      expect(cookies.get('site.sid')).to.match(/^site\.sid=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT/);
      const renamed = pair(cookies.get('__Host-site.sid'));
      expect((await request(app).get('/account').set(HTTPS).set('Cookie', renamed)).status).to.equal(200);
      // Adopted once: the old name is refused from then on.
      expect((await request(app).get('/account').set(HTTPS).set('Cookie', before.cookie)).status).to.equal(303);
      expect(await ctx.db('app_auth_sessions').where({ sid: before.sid }).first('sid')).to.deep.equal({ sid: before.sid });
    });

    it('keeps the old names over plain HTTP (a production site tried without TLS)', async () => {
      const page = await request(app).get('/auth/login');
      expect(setCookies(page).get('site.csrf')).to.match(/^site\.csrf=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
      const user = await makeUser(ctx, { email: 'ada@example.com' });
      const { cookie } = await logIn(ctx, user);
      expect((await request(app).get('/account').set('Cookie', cookie)).status).to.equal(200);
    });

    it('names the second step’s cookie __Host- too, for the whole site (a __Host- cookie has Path=/)', async () => {
      const user = await makeUser(ctx, { email: 'ada@example.com' });
      await enrolTwoFactor(ctx, user);
      const login = await logInThroughForm(user.email);
      expect(login.status).to.equal(303);
      expect(login.headers.location).to.equal('/auth/2fa');
      const pending = setCookies(login).get('__Host-site.2fa');
      expect(pending).to.match(/^__Host-site\.2fa=[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
      const page = await request(app).get('/auth/2fa').set(HTTPS).set('Cookie', pair(pending));
      expect(page.status).to.equal(200);
      expect(page.text).to.include('name="code"');
    });
  });

  describe('If-Range (RFC 9110 §13.1.5): a range only with a strong validator', () => {
    let app: App;
    let ctx: AppContext;
    before(() => {
      app = createTestApp();
      ctx = contextOf(app);
    });
    beforeEach(() => resetData(ctx));

    it('an upload: its strong ETag or its exact Last-Modified gets the range; a weak tag or another date gets the whole file', async () => {
      const me = await caller(ctx, { permissions: ['admin.access', 'pages.manage'] });
      const bytes = Buffer.concat([PNG_1X1, Buffer.alloc(2000, 7)]);
      const created = await request(app).post('/app/api/admin/media').set('Cookie', me.cookie).field('alt', 'Une photo').attach('file', bytes, 'photo.png');
      expect(created.status).to.equal(201);
      const url = created.body.url as string;
      clock.install(app);
      clock.advance(5000); // the file's time is now more than a second old: a strong date
      const full = await request(app).get(url);
      const etag = full.headers.etag;
      expect(etag).to.match(/^"[0-9a-f]+-[0-9a-f]+"$/);
      const range = (ifRange: string) => request(app).get(url).set('Range', 'bytes=0-9').set('If-Range', ifRange);

      const strong = await range(etag);
      expect(strong.status).to.equal(206);
      expect(strong.headers['content-range']).to.equal(`bytes 0-9/${bytes.length}`);
      expect((await range(`W/${etag}`)).status).to.equal(200);
      expect((await range('"0-0"')).status).to.equal(200);
      const exact = await range(full.headers['last-modified']);
      expect(exact.status).to.equal(206);
      const later = new Date(Date.parse(full.headers['last-modified']) + 60_000).toUTCString();
      const whole = await range(later);
      expect(whole.status).to.equal(200);
      expect(whole.body.length).to.equal(bytes.length);
    });

    it('an asset or the icon (weak validators): a Range with If-Range gets the whole file, a Range alone its part', async () => {
      for (const path of ['/assets/css/admin.css', '/favicon.ico']) {
        const full = await request(app).get(path);
        const length = Number(full.headers['content-length']);
        expect((await request(app).get(path).set('Range', 'bytes=0-9')).status, path).to.equal(206);
        for (const ifRange of [full.headers.etag, full.headers['last-modified']]) {
          const answer = await request(app).get(path).set('Range', 'bytes=0-9').set('If-Range', ifRange);
          expect(answer.status, `${path} ${ifRange}`).to.equal(200);
          expect(Number(answer.headers['content-length']), path).to.equal(length);
        }
      }
    });

    it('a public page answers no range at all', async () => {
      const response = await request(app).get('/robots.txt').set('Range', 'bytes=0-3');
      expect(response.status).to.equal(200);
      expect(response.headers['accept-ranges']).to.equal(undefined);
      expect(response.headers['content-range']).to.equal(undefined);
    });
  });
});
