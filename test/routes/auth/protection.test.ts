// Anti-bot, CSRF and enumeration resistance of the public forms.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { createFirstAdmin, createUserByAdmin } from '../../../models/auth/registration.js';
import { insertUser } from '../../../models/auth/users.js';
import { logIn, makeUser } from '../../support/fixtures.js';
import { closeTestApp, createTestApp, useAppWithSmtp, type App } from '../../support/app.js';
import type { TestSmtpServer } from '../../support/smtp.js';
import { FormClient, strongPassword, useFakeClock } from '../../support/form-client.js';

const ANTI_BOT_MESSAGE = 'Le formulaire n’a pas pu être validé. Il peut être envoyé à nouveau depuis cette page.';
const TOO_FAST_MESSAGE =
  'Le formulaire est parti trop vite après l’affichage de la page (moins d’une seconde et demie, comme avec un remplissage automatique). Tout ce qui a été saisi est conservé\u00a0: il peut être envoyé à nouveau.';

describe('/auth form protection', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;
  const clock = useFakeClock();

  useAppWithSmtp({}, (createdApp, startedSmtp, context) => {
    app = createdApp;
    smtp = startedSmtp;
    ctx = context;
  });
  const settleBackgroundTasks = () => ctx.background.settle();
  beforeEach(async () => {
    await createFirstAdmin(ctx, { email: 'admin@example.com', password: strongPassword, name: 'Admin' });
  });

  describe('anti-bot', () => {
    const login = { email: 'admin@example.com', password: strongPassword };

    it('refuses a submission under 1.5 s after the form was rendered, says it went too fast, and keeps everything typed, the password included', async () => {
      const client = new FormClient(app, clock);
      const response = await client.submit('/auth/login', login, { waitMs: 1400 });
      expect(response.status).to.equal(400);
      expect(response.text).to.include(TOO_FAST_MESSAGE);
      expect(response.text).to.include('role="alert"');
      expect(response.text).to.include('value="admin@example.com"');
      expect(response.text).to.match(new RegExp(`name="password" type="password" value="${strongPassword}"`));
      expect(response.headers['cache-control']).to.equal('no-store');
      expect(await ctx.db('app_auth_sessions').whereNotNull('user_id')).to.have.length(0);
      // Sent again from that page (a person's click, later): accepted.
      const again = await client.submit('/auth/login', login);
      expect(again.status).to.equal(303);
      // The password was in that one answer only: the next page has none.
      expect((await new FormClient(app, clock).get('/auth/login')).text).not.to.include(strongPassword);
    });

    it('keeps the chosen password and its confirmation of a too quick activation, the link’s token too', async () => {
      const { setupToken } = await createUserByAdmin(ctx, { email: 'new@example.com', name: 'New' });
      const client = new FormClient(app, clock);
      const fields = { email: 'new@example.com', token: setupToken!, newPassword: 'a chosen passphrase', confirmPassword: 'a chosen passphrase' };
      const response = await client.submit('/auth/setup', fields, { from: `/auth/setup?email=new%40example.com&token=${setupToken}`, waitMs: 300 });
      expect(response.status).to.equal(400);
      expect(response.text).to.include(TOO_FAST_MESSAGE);
      expect(response.text).to.include('name="newPassword" type="password" value="a chosen passphrase"');
      expect(response.text).to.include('name="confirmPassword" type="password" value="a chosen passphrase"');
      expect(response.text).to.include(`name="token" value="${setupToken}"`);
      expect(await ctx.db('app_auth_accounts').where({ provider: 'credential' })).to.have.length(1);
    });

    it('never gives a password back for any other refusal (a filled honeypot, a wrong password)', async () => {
      const client = new FormClient(app, clock);
      const honeypot = await client.submit('/auth/login', login, { raw: { _hp: 'http://spam.example' } });
      expect(honeypot.status).to.equal(400);
      expect(honeypot.text).to.include(ANTI_BOT_MESSAGE);
      expect(honeypot.text).not.to.include(strongPassword);
      const wrong = await client.submit('/auth/login', { email: 'admin@example.com', password: 'not the right one' });
      expect(wrong.status).to.equal(401);
      expect(wrong.text).not.to.include('not the right one');
    });

    it('refuses a submission over 10 minutes after the form was rendered', async () => {
      const client = new FormClient(app, clock);
      const response = await client.submit('/auth/login', login, { waitMs: 10 * 60_000 + 1000, json: true });
      expect(response.status).to.equal(400);
      expect(response.body).to.deep.equal({ success: false, error: ANTI_BOT_MESSAGE, code: 'form_rejected' });
    });

    it('refuses a filled honeypot', async () => {
      const client = new FormClient(app, clock);
      const response = await client.submit('/auth/login', login, { raw: { _hp: 'http://spam.example' }, json: true });
      expect(response.status).to.equal(400);
      expect(response.body.error).to.equal(ANTI_BOT_MESSAGE);
    });

    it('refuses a missing or forged render time', async () => {
      const client = new FormClient(app, clock);
      const tenSecondsAgo = String(clock.current - 10_000);
      for (const stamp of ['', `${tenSecondsAgo}.forged-signature`, tenSecondsAgo, `${tenSecondsAgo}.`]) {
        const response = await client.submit('/auth/login', login, { raw: { _t: stamp }, json: true });
        expect(response.status, stamp).to.equal(400);
        expect(response.body.error, stamp).to.equal(ANTI_BOT_MESSAGE);
      }
      // A genuine stamp with its time changed no longer matches its signature.
      const tokens = await client.tokens('/auth/login');
      const [renderedAt, mac] = tokens._t.split('.');
      clock.advance(2000);
      const shifted = await client.agent
        .post('/auth/login')
        .type('form')
        .set('Accept', 'application/json')
        .send({ ...tokens, _t: `${Number(renderedAt) - 60_000}.${mac}`, _hp: '', ...login });
      expect(shifted.status).to.equal(400);
    });

    it('accepts the same form between 1.5 s and 10 minutes', async () => {
      const client = new FormClient(app, clock);
      expect((await client.submit('/auth/login', login, { waitMs: 1500 })).status).to.equal(303);
      expect((await client.submit('/auth/login', login, { waitMs: 9 * 60_000 })).status).to.equal(303);
    });

    it('applies to every public form', async () => {
      const forms: Array<[string, Record<string, string>]> = [
        ['/auth/register', { name: 'B', email: 'b@example.com', password: strongPassword }],
        ['/auth/forgot', { email: 'admin@example.com' }],
        ['/auth/reset', { email: 'admin@example.com', token: 'x', newPassword: strongPassword }],
        ['/auth/confirm', { email: 'admin@example.com', token: 'x' }],
        ['/auth/setup', { email: 'admin@example.com', token: 'x', newPassword: strongPassword, confirmPassword: strongPassword }],
        ['/auth/resend-verification', { email: 'admin@example.com' }],
      ];
      const client = new FormClient(app, clock);
      for (const [path, fields] of forms) {
        const response = await client.submit(path, fields, { from: '/auth/login', waitMs: 100, json: true });
        expect(response.status, path).to.equal(400);
        expect(response.body, path).to.deep.equal({ success: false, error: TOO_FAST_MESSAGE, code: 'form_too_fast' });
      }
      await settleBackgroundTasks();
      expect(smtp.messages).to.have.length(0);
    });
  });

  describe('CSRF', () => {
    const login = { email: 'admin@example.com', password: strongPassword };

    it('refuses a form POST without the token, or with a token of another browser, with 403', async () => {
      const client = new FormClient(app, clock);
      const other = new FormClient(app, clock);
      const foreign = await other.tokens('/auth/login');
      const missing = await client.submit('/auth/login', login, { raw: { _csrf: '' }, json: true });
      expect(missing.status).to.equal(403);
      expect(missing.body).to.include({ success: false, code: 'csrf' });
      const swapped = await client.submit('/auth/login', login, { raw: { _csrf: foreign._csrf } });
      expect(swapped.status).to.equal(403);
      expect(swapped.text).to.include('Le formulaire a expiré.');
      // The re-rendered form carries a fresh token that works.
      const retry = await client.submit('/auth/login', login);
      expect(retry.status).to.equal(303);
    });

    it('refuses a POST without the CSRF cookie', async () => {
      const client = new FormClient(app, clock);
      const tokens = await client.tokens('/auth/login');
      clock.advance(2000);
      const response = await request(app)
        .post('/auth/login')
        .type('form')
        .send({ ...tokens, _hp: '', ...login });
      expect(response.status).to.equal(403);
    });

    it('refuses a cross-site Origin or Sec-Fetch-Site with 403, even with a valid token, logout included', async () => {
      const client = new FormClient(app, clock);
      const origin = await client.submit('/auth/login', login, { headers: { Origin: 'https://evil.example' } });
      expect(origin.status).to.equal(403);
      const fetchSite = await client.submit('/auth/login', login, { headers: { 'Sec-Fetch-Site': 'cross-site' } });
      expect(fetchSite.status).to.equal(403);
      const sameOrigin = await client.submit('/auth/login', login, { headers: { Origin: 'http://site.test', 'Sec-Fetch-Site': 'same-origin' } });
      expect(sameOrigin.status).to.equal(303);

      const admin = await client.get('/admin');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(admin.text)![1];
      const crossLogout = await client.agent.post('/auth/logout').type('form').set('Origin', 'https://evil.example').send({ _csrf: csrf });
      expect(crossLogout.status).to.equal(403);
      const noTokenLogout = await client.agent.post('/auth/logout').type('form').send({});
      expect(noTokenLogout.status).to.equal(403);
      expect((await client.get('/admin')).status).to.equal(200);
    });

    describe('bound to the session', () => {
      // An attacker who can plant a cookie (a sibling subdomain, a network on plain
      // HTTP) plants their own CSRF cookie and posts the token the site gave them for it.
      const PLANTED = 'planted-csrf-cookie-value-0123456789';
      const withPlanted = (sessionCookie?: string) => [sessionCookie, `site.csrf=${PLANTED}`].filter(Boolean).join('; ');

      async function tokenFor(cookie: string, path: string): Promise<string> {
        const page = await request(app).get(path).set('Cookie', cookie);
        const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
        if (!token) throw new Error(`no token on ${path} (status ${page.status})`);
        return token;
      }

      const logout = (cookie: string, token: string) => request(app).post('/auth/logout').type('form').set('Cookie', cookie).send({ _csrf: token });

      it('refuses a token minted in another session with the same planted cookie, and one minted without a session', async () => {
        const attacker = await logIn(ctx, await makeUser(ctx));
        const victim = await logIn(ctx, await makeUser(ctx));
        const attackersToken = await tokenFor(withPlanted(attacker.cookie), '/auth/logout');
        const sessionlessToken = await tokenFor(withPlanted(), '/auth/login');

        const fromOtherSession = await logout(withPlanted(victim.cookie), attackersToken);
        expect(fromOtherSession.status).to.equal(403);
        expect(fromOtherSession.text).to.include('Le formulaire a expiré.');
        expect((await logout(withPlanted(victim.cookie), sessionlessToken)).status).to.equal(403);
        expect(await ctx.db('app_auth_sessions').where({ sid: victim.sid }).first()).to.not.equal(undefined);

        // The victim's own page gives a token that works, cookie and all.
        const own = await logout(withPlanted(victim.cookie), await tokenFor(withPlanted(victim.cookie), '/auth/logout'));
        expect(own.status).to.equal(303);
        expect(await ctx.db('app_auth_sessions').where({ sid: victim.sid }).first()).to.equal(undefined);
      });

      it('keeps working without a session, and for the same browser once logged in', async () => {
        const client = new FormClient(app, clock);
        expect((await client.submit('/auth/forgot', { email: 'nobody@example.com' })).status).to.equal(200);
        expect((await client.submit('/auth/login', login)).status).to.equal(303);
        // A token from before the login belongs to no session: the logged-in browser needs a new one.
        const admin = await client.get('/admin');
        const token = /name="_csrf" value="([^"]+)"/.exec(admin.text)![1];
        expect((await client.agent.post('/auth/logout').type('form').send({ _csrf: token })).status).to.equal(303);
      });
    });

    it('sets the CSRF cookie HttpOnly and SameSite=Lax', async () => {
      const page = await request(app).get('/auth/login');
      const cookie = ([] as string[]).concat(page.headers['set-cookie'] ?? []).find((value) => value.startsWith('site.csrf='));
      expect(cookie).to.match(/HttpOnly/);
      expect(cookie).to.match(/SameSite=Lax/i);
      expect(cookie).not.to.match(/Secure/);
    });

    it('marks cookies Secure when served over HTTPS behind a trusted proxy', async () => {
      const proxied = createTestApp({ SMTP_URL: smtp.url, APP_TRUST_PROXY: 'loopback' });
      try {
        const page = await request(proxied).get('/auth/login').set('X-Forwarded-Proto', 'https');
        const cookie = ([] as string[]).concat(page.headers['set-cookie'] ?? []).find((value) => value.startsWith('site.csrf='));
        expect(cookie).to.match(/Secure/);
        const client = new FormClient(proxied, clock);
        const tokens = await client.tokens('/auth/login');
        clock.advance(2000);
        const login = await client.agent
          .post('/auth/login')
          .type('form')
          .set('X-Forwarded-Proto', 'https')
          .send({ ...tokens, _hp: '', email: 'admin@example.com', password: strongPassword });
        expect(login.status).to.equal(303);
        const session = ([] as string[]).concat(login.headers['set-cookie'] ?? []).find((value) => value.startsWith('site.sid='));
        expect(session).to.match(/Secure/);
        expect(session).to.match(/HttpOnly/);
      } finally {
        await closeTestApp(proxied);
      }
    });
  });

  describe('enumeration', () => {
    beforeEach(async () => {
      await insertUser(ctx, { email: 'unverified@example.com', name: 'U', emailVerified: false });
    });

    // Tokens in the page differ on every render; everything else must be identical.
    function normalise(html: string): string {
      return html.replace(/name="(_csrf|_t)" value="[^"]*"/g, 'name="$1" value=""').replace(/value="[^"]*@example\.com"/g, 'value="<email>"');
    }

    async function answers(path: string, email: string, json: boolean) {
      // Six answers per case exceed the forms' budgets; rate limits have their own tests.
      await ctx.db('app_auth_rate_limits').delete();
      const client = new FormClient(app, clock);
      const response = await client.submit(path, { email }, { from: path === '/auth/forgot' ? '/auth/forgot' : '/auth/login', json });
      await settleBackgroundTasks();
      return { status: response.status, body: json ? JSON.stringify(response.body) : normalise(response.text), type: response.headers['content-type'] };
    }

    for (const [path, existing] of [
      ['/auth/forgot', 'admin@example.com'],
      ['/auth/resend-verification', 'unverified@example.com'],
    ] as const) {
      it(`${path} answers identically for an existing account, an unknown one, and with the mail server down`, async () => {
        for (const json of [false, true]) {
          const known = await answers(path, existing, json);
          const unknown = await answers(path, 'nobody@example.com', json);
          smtp.setFailing(true);
          const down = await answers(path, existing, json);
          await settleBackgroundTasks();
          smtp.setFailing(false);
          expect(known.status).to.equal(200);
          expect(unknown).to.deep.equal(known);
          expect(down).to.deep.equal(known);
        }
        await settleBackgroundTasks();
        expect(smtp.messages.map((message) => message.to[0])).to.deep.equal([existing, existing]);
      });
    }
  });
});
