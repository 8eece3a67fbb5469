// End-to-end flows through a real SMTP server: every email is received and its link
// followed, as a person would.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { createFirstAdmin, createUserByAdmin } from '../../../models/auth/registration.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import type { TestSmtpServer } from '../../support/smtp.js';
import { FormClient, hiddenField, strongPassword, useFakeClock } from '../../support/form-client.js';

function sessionCookie(response: request.Response): string | undefined {
  const cookies = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
  return cookies.find((cookie) => cookie.startsWith('site.sid='));
}

describe('/auth flows', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;
  const clock = useFakeClock();

  useAppWithSmtp({ APP_NAME: 'Atelier' }, (createdApp, startedSmtp, context) => {
    app = createdApp;
    smtp = startedSmtp;
    ctx = context;
  });

  async function sessionRows() {
    return ctx.db('app_auth_sessions').whereNotNull('user_id').select('sid', 'user_id');
  }

  describe('first run', () => {
    it('creates the administrator, opens a session and lands on /admin', async () => {
      const client = new FormClient(app, clock);
      const response = await client.submit('/auth', { name: 'Ada', email: 'Ada@Example.com', password: strongPassword });
      expect(response.status).to.equal(303);
      expect(response.headers.location).to.equal('/admin');
      const cookie = sessionCookie(response);
      expect(cookie).to.match(/HttpOnly/i);
      expect(cookie).to.match(/SameSite=Lax/i);
      const user = await ctx.db('app_auth_users').first();
      expect(user).to.include({ email: 'ada@example.com', email_verified: true });
      expect(smtp.messages).to.have.length(0);
      const admin = await client.get('/admin');
      expect(admin.status).to.equal(200);
      expect(admin.text).to.include('Bienvenue, Ada.');
    });

    it('answers {success:true, redirect:"/admin"} to a JSON client', async () => {
      const client = new FormClient(app, clock);
      const response = await client.submit('/auth/login', { name: 'Ada', email: 'ada@example.com', password: strongPassword }, { json: true });
      expect(response.status).to.equal(200);
      expect(response.body).to.include({ success: true, redirect: '/admin' });
    });

    it('re-renders the form with the message and the input (never the password) on invalid input', async () => {
      const client = new FormClient(app, clock);
      const response = await client.submit('/auth', { name: 'Ada', email: 'ada@example.com', password: 'short' });
      expect(response.status).to.equal(400);
      expect(response.text).to.include('Le mot de passe doit contenir au moins 8 caractères.');
      expect(response.text).to.include('value="ada@example.com"');
      expect(response.text).not.to.include('value="short"');
      expect(response.text).to.include('role="alert"');
      const json = await client.submit('/auth', { name: '', email: 'nope', password: strongPassword }, { json: true });
      expect(json.status).to.equal(400);
      expect(json.body.success).to.equal(false);
      expect(json.body.error).to.be.a('string');
      expect(json.body.details.map((detail: { field: string }) => detail.field)).to.have.members(['name', 'email']);
      expect(await ctx.db('app_auth_users').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    });

    it('gives exactly one administrator out of two simultaneous submissions; the other reads «Le compte administrateur existe déjà»', async () => {
      const first = new FormClient(app, clock);
      const second = new FormClient(app, clock);
      const tokensA = await first.tokens('/auth');
      const tokensB = await second.tokens('/auth');
      clock.advance(2000);
      const [a, b] = await Promise.all([
        first.agent
          .post('/auth')
          .type('form')
          .set('Accept', 'application/json')
          .send({ ...tokensA, _hp: '', name: 'A', email: 'a@example.com', password: strongPassword }),
        second.agent
          .post('/auth')
          .type('form')
          .set('Accept', 'application/json')
          .send({ ...tokensB, _hp: '', name: 'B', email: 'b@example.com', password: strongPassword }),
      ]);
      const statuses = [a.status, b.status].sort();
      const failed = [a, b].find((response) => response.status !== 200)!;
      // The loser either raced into createFirstAdmin (400) or arrived once the admin existed (login refused, 401).
      expect(statuses[0]).to.equal(200);
      expect(await ctx.db('app_auth_users').count({ n: '*' }).first()).to.deep.equal({ n: 1 });
      if (failed.status === 400) expect(failed.body).to.include({ success: false, error: 'Le compte administrateur existe déjà' });
      else expect(failed.status).to.equal(401);
    });
  });

  describe('first-run form from a tab opened before the account existed', () => {
    const stale = { _form: 'first-run', _hp: '', name: 'Late', email: 'ada@example.com', password: strongPassword };

    async function createAdminElsewhere(): Promise<void> {
      const other = new FormClient(app, clock);
      expect((await other.submit('/auth', { _form: 'first-run', name: 'Ada', email: 'ada@example.com', password: strongPassword })).status).to.equal(303);
    }

    it('answers «Le compte administrateur existe déjà» on the login page, and is not taken for a login (even with the right password)', async () => {
      const client = new FormClient(app, clock);
      const tokens = await client.tokens('/auth/register');
      await createAdminElsewhere();
      clock.advance(2000);
      const response = await client.agent
        .post('/auth/register')
        .type('form')
        .send({ ...tokens, ...stale });
      expect(response.status).to.equal(400);
      expect(response.text).to.include('Le compte administrateur existe déjà');
      expect(response.text).to.include('<title>Erreur\u00a0: Connexion — Atelier</title>');
      expect(response.text).to.include('action="/auth/login"');
      expect(sessionCookie(response)).to.equal(undefined);
      expect(await sessionRows()).to.have.length(1);

      const json = await client.agent
        .post('/auth')
        .type('form')
        .set('Accept', 'application/json')
        .send({ ...tokens, ...stale });
      expect(json.status).to.equal(400);
      expect(json.body).to.deep.equal({ success: false, error: 'Le compte administrateur existe déjà', code: 'admin_exists' });
      expect(await ctx.db('app_auth_users').count({ n: '*' }).first()).to.deep.equal({ n: 1 });
    });

    it('answers the same in the browser that has just created the administrator in another tab', async () => {
      const client = new FormClient(app, clock);
      const secondTab = await client.tokens('/auth');
      expect((await client.submit('/auth', { _form: 'first-run', name: 'Ada', email: 'ada@example.com', password: strongPassword })).status).to.equal(303);
      const response = await client.agent
        .post('/auth')
        .type('form')
        .set('Accept', 'application/json')
        .send({ ...secondTab, ...stale, name: 'Ada again', email: 'other@example.com' });
      expect(response.status).to.equal(400);
      expect(response.body).to.include({ error: 'Le compte administrateur existe déjà', code: 'admin_exists' });
    });

    it('still takes a login form for a login', async () => {
      await createAdminElsewhere();
      const client = new FormClient(app, clock);
      expect((await client.submit('/auth', { email: 'ada@example.com', password: strongPassword })).status).to.equal(303);
    });
  });

  describe('registration', () => {
    beforeEach(() => createFirstAdmin(ctx, { email: 'admin@example.com', password: strongPassword, name: 'Admin' }));

    it('register → verification email → confirm → login', async () => {
      const client = new FormClient(app, clock);
      const registered = await client.submit('/auth/register', { name: 'Bob', email: 'bob@example.com', password: strongPassword });
      expect(registered.status).to.equal(200);
      expect(registered.text).to.include('Un courriel vient d’être envoyé à l’adresse indiquée, avec la suite à donner');
      const email = await smtp.waitForMessage('bob@example.com');
      expect(email.subject).to.equal('Vérification du courriel — Atelier');
      const link = smtp.linkIn(email, '/auth/confirm');
      expect(link.origin).to.equal('http://site.test');

      // Before confirming, the right password meets the unverified rule and the resend button.
      const early = await client.submit('/auth/login', { email: 'bob@example.com', password: strongPassword });
      expect(early.status).to.equal(401);
      expect(early.text).to.include('Le courriel de ce compte n&#39;a pas été vérifié.');
      expect(early.text).to.include('Renvoyer le lien de vérification');
      expect(early.text).to.include('action="/auth/resend-verification"');

      const page = await client.get(link.pathname + link.search);
      expect(page.status).to.equal(200);
      expect(page.text).to.include('value="bob@example.com"');
      expect((await ctx.db('app_auth_users').where({ email: 'bob@example.com' }).first())!.email_verified).to.equal(false);
      const confirmed = await client.submit(
        '/auth/confirm',
        { email: link.searchParams.get('email')!, token: link.searchParams.get('token')! },
        { from: link.pathname + link.search },
      );
      expect(confirmed.status).to.equal(303);
      expect(confirmed.headers.location).to.equal('/auth/login?done=verified');
      expect((await ctx.db('app_auth_users').where({ email: 'bob@example.com' }).first())!.email_verified).to.equal(true);
      const done = await client.get(confirmed.headers.location);
      expect(done.text).to.include('Le courriel est vérifié.');

      const login = await client.submit('/auth/login', { email: 'bob@example.com', password: strongPassword }, { json: true });
      expect(login.status).to.equal(200);
      expect(login.body.success).to.equal(true);
      expect(login.body.user).to.include({ email: 'bob@example.com', name: 'Bob', role: 'user', email_verified: true });
      expect(login.body.user).not.to.have.property('password_hash');

      // The link works once.
      const again = await client.submit('/auth/confirm', { email: 'bob@example.com', token: link.searchParams.get('token')! }, { from: '/auth/confirm' });
      expect(again.status).to.equal(400);
      expect(again.text).to.include('Ce lien est invalide ou a expiré. Une nouvelle demande est nécessaire.');
    });

    it('still creates the account when the email cannot be sent, and says how to get a new link', async () => {
      smtp.setFailing(true);
      const client = new FormClient(app, clock);
      const response = await client.submit('/auth/register', { name: 'Bob', email: 'bob@example.com', password: strongPassword }, { json: true });
      expect(response.status).to.equal(200);
      expect(response.body.success).to.equal(true);
      expect(response.body.message).to.include('Le courriel destiné à l’adresse indiquée n’a pas pu être envoyé');
      expect(response.body.message).to.include('page de connexion');
      expect(await ctx.db('app_auth_users').where({ email: 'bob@example.com' }).first()).to.include({ email_verified: false });
    });

    it('resend-verification sends a new working link after an email_unverified failure', async () => {
      const client = new FormClient(app, clock);
      await client.submit('/auth/register', { name: 'Bob', email: 'bob@example.com', password: strongPassword });
      const firstLink = smtp.linkIn(await smtp.waitForMessage('bob@example.com'), '/auth/confirm');
      smtp.clear();
      const failed = await client.submit('/auth/login', { email: 'bob@example.com', password: strongPassword }, { json: true });
      expect(failed.body).to.deep.equal({ success: false, error: "Le courriel de ce compte n'a pas été vérifié.", code: 'email_unverified' });
      const resent = await client.submit('/auth/resend-verification', { email: 'bob@example.com' }, { from: '/auth/login' });
      expect(resent.status).to.equal(200);
      expect(resent.text).to.include('Si un compte non vérifié correspond à ce courriel');
      const link = smtp.linkIn(await smtp.waitForMessage('bob@example.com'), '/auth/confirm');
      expect(link.searchParams.get('token')).not.to.equal(firstLink.searchParams.get('token'));
      const confirmed = await client.submit('/auth/confirm', { email: 'bob@example.com', token: link.searchParams.get('token')! });
      expect(confirmed.status).to.equal(303);
    });

    it('refuses a name with a line break, a terminal escape or a bidirectional override (400 on the name), creating nothing', async () => {
      for (const name of ['Bob\r\nAdmin', 'Bob\u001b[0m', 'Bob\u202eeciffo']) {
        const client = new FormClient(app, clock);
        const response = await client.submit('/auth/register', { name, email: 'bob@example.com', password: strongPassword }, { json: true });
        expect(response.status, JSON.stringify(name)).to.equal(400);
        expect(response.body.details).to.deep.include({
          field: 'name',
          message:
            '«\u00a0Nom\u00a0» tient sur une seule ligne, sans caractère de contrôle (retour à la ligne, tabulation, séquence d’échappement) ni caractère d’inversion du sens du texte.',
        });
      }
      expect(await ctx.db('app_auth_users').where({ email: 'bob@example.com' })).to.deep.equal([]);
      expect(smtp.messages).to.have.length(0);
    });

    it('answers an existing address exactly as a new one (status, page, JSON), creates nothing, and emails its owner a working reset link', async () => {
      const answerTo = async (email: string, json: boolean) => {
        const response = await new FormClient(app, clock).submit('/auth/register', { name: 'Bob', email, password: strongPassword }, { json });
        // The page as anyone sees it, without what differs at every render (form tokens).
        const page = json ? response.body : response.text.replace(/name="(_csrf|_t)" value="[^"]*"/g, '').replace(/nonce="[^"]*"/g, '');
        return { status: response.status, page };
      };
      const fresh = await answerTo('new@example.com', false);
      const existing = await answerTo('ADMIN@example.com', false);
      expect(existing.status).to.equal(200);
      expect(existing).to.deep.equal({ ...fresh, page: fresh.page.replaceAll('new@example.com', 'ADMIN@example.com') });
      const freshJson = await answerTo('new2@example.com', true);
      const existingJson = await answerTo('admin@example.com', true);
      expect(existingJson).to.deep.equal(freshJson);

      expect(await ctx.db('app_auth_users').where({ email: 'admin@example.com' })).to.have.length(1);
      const admin = (await ctx.db('app_auth_users').where({ email: 'admin@example.com' }).first())!;
      expect(await ctx.db('app_audit_events').where({ action: 'auth.sign_up_existing', target_id: String(admin.id) })).to.have.length(2);
      const toOwner = smtp.messages.filter((message) => message.to.includes('admin@example.com'));
      expect(toOwner.map((message) => message.subject)).to.deep.equal([
        'Un compte existe déjà avec cette adresse — Atelier',
        'Un compte existe déjà avec cette adresse — Atelier',
      ]);
      expect(toOwner[1].text).to.include('aucun nouveau compte n’a été créé');
      expect(toOwner[1].text).not.to.include('/auth/confirm');
      const link = smtp.linkIn(toOwner[1], '/auth/reset');
      const client = new FormClient(app, clock);
      const reset = await client.submit(
        '/auth/reset',
        { email: 'admin@example.com', token: link.searchParams.get('token')!, newPassword: 'a brand new passphrase' },
        { from: link.pathname + link.search },
      );
      expect(reset.status).to.equal(303);
      const login = await client.submit('/auth/login', { email: 'admin@example.com', password: 'a brand new passphrase' }, { json: true });
      expect(login.status).to.equal(200);
    });
  });

  describe('login', () => {
    beforeEach(async () => {
      await createFirstAdmin(ctx, { email: 'admin@example.com', password: strongPassword, name: 'Admin' });
      await ctx.db('app_auth_users').insert({
        email: 'late@example.com',
        name: 'Late',
        role_id: (await ctx.db('app_auth_roles').where({ name: 'user' }).first())!.id,
        email_verified: false,
      });
    });

    it('refuses a wrong password and an unknown address with the same 401 answer', async () => {
      const client = new FormClient(app, clock);
      const wrong = await client.submit('/auth/login', { email: 'admin@example.com', password: 'not the password' }, { json: true });
      const unknown = await client.submit('/auth/login', { email: 'nobody@example.com', password: 'not the password' }, { json: true });
      expect(wrong.status).to.equal(401);
      expect(unknown.status).to.equal(401);
      expect(wrong.body).to.deep.equal(unknown.body);
      expect(wrong.body).to.include({ success: false, error: 'Courriel ou mot de passe incorrect.' });
    });

    it('answers an unverified account with a wrong password like a missing account', async () => {
      const client = new FormClient(app, clock);
      const unverified = await client.submit('/auth/login', { email: 'late@example.com', password: 'not the password' }, { json: true });
      const unknown = await client.submit('/auth/login', { email: 'nobody@example.com', password: 'not the password' }, { json: true });
      expect(unverified.status).to.equal(401);
      expect(unverified.body).to.deep.equal(unknown.body);
      const html = await client.submit('/auth/login', { email: 'late@example.com', password: 'not the password' });
      expect(html.text).not.to.include('Renvoyer le lien de vérification');
    });

    it('regenerates the session id at login (a planted id is worthless)', async () => {
      const client = new FormClient(app, clock);
      // A session that exists before login (any /auth visitor could be handed one).
      const first = await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword });
      const before = sessionCookie(first)!.split(';')[0];
      const second = await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword });
      const after = sessionCookie(second)!.split(';')[0];
      expect(after).not.to.equal(before);
      const planted = await request(app).get('/admin').set('Cookie', before);
      expect(planted.status).to.equal(303);
    });

    it('follows a same-site next path and ignores any other', async () => {
      const cases: Array<[string, string]> = [
        ['/admin/users?tab=2', '/admin/users?tab=2'],
        ['//evil.example/x', '/admin'],
        ['/\\evil.example', '/admin'],
        ['https://evil.example/', '/admin'],
        ['/\tevil', '/admin'],
      ];
      for (const [next, expected] of cases) {
        const client = new FormClient(app, clock);
        const response = await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword, next });
        expect(response.headers.location, next).to.equal(expected);
      }
      const client = new FormClient(app, clock);
      const page = await client.get('/auth/login?next=%2F%2Fevil.example');
      expect(page.text).not.to.include('name="next"');
      const kept = await client.get('/auth/login?next=%2Fadmin%2Fpages');
      expect(kept.text).to.include('name="next" value="/admin/pages"');
    });
  });

  describe('password reset', () => {
    beforeEach(() => createFirstAdmin(ctx, { email: 'admin@example.com', password: strongPassword, name: 'Admin' }));

    it('forgot → email → reset → login with the new password, with the password-changed email and old sessions closed', async () => {
      const loggedIn = new FormClient(app, clock);
      await loggedIn.submit('/auth/login', { email: 'admin@example.com', password: strongPassword });
      expect(await sessionRows()).to.have.length(1);

      const client = new FormClient(app, clock);
      const forgot = await client.submit('/auth/forgot', { email: 'admin@example.com' });
      expect(forgot.status).to.equal(200);
      const email = await smtp.waitForMessage('admin@example.com');
      expect(email.subject).to.equal('Réinitialisation du mot de passe — Atelier');
      const link = smtp.linkIn(email, '/auth/reset');
      smtp.clear();
      const page = await client.get(link.pathname + link.search);
      expect(page.text).not.to.include('role="alert"');
      expect(page.headers['referrer-policy']).to.equal('no-referrer');
      const reset = await client.submit(
        '/auth/reset',
        { email: 'admin@example.com', token: link.searchParams.get('token')!, newPassword: 'a brand new secret' },
        { from: link.pathname + link.search },
      );
      expect(reset.status).to.equal(303);
      expect(reset.headers.location).to.equal('/auth/login?done=reset');
      const changed = await smtp.waitForMessage('admin@example.com');
      expect(changed.subject).to.equal('Mot de passe modifié — Atelier');
      expect(await sessionRows()).to.have.length(0);
      expect((await loggedIn.get('/admin')).status).to.equal(303);

      const old = await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword }, { json: true });
      expect(old.status).to.equal(401);
      const fresh = await client.submit('/auth/login', { email: 'admin@example.com', password: 'a brand new secret' });
      expect(fresh.status).to.equal(303);
    });

    it('keeps the link in the form when the new password is refused, so it can be sent again', async () => {
      const client = new FormClient(app, clock);
      await client.submit('/auth/forgot', { email: 'admin@example.com' });
      const link = smtp.linkIn(await smtp.waitForMessage('admin@example.com'), '/auth/reset');
      const token = link.searchParams.get('token')!;
      const from = link.pathname + link.search;
      const refused = await client.submit('/auth/reset', { email: 'admin@example.com', token, newPassword: 'short' }, { from });
      expect(refused.status).to.equal(400);
      expect(refused.text).to.include('Le mot de passe doit contenir au moins 8 caractères.');
      expect(hiddenField(refused.text, 'token')).to.equal(token);
      const again = await client.submit('/auth/reset', { email: 'admin@example.com', token, newPassword: 'a brand new secret' }, { from });
      expect(again.status).to.equal(303);
    });

    it('refuses an expired reset link with the message shown as it stands', async () => {
      const client = new FormClient(app, clock);
      await client.submit('/auth/forgot', { email: 'admin@example.com' });
      const link = smtp.linkIn(await smtp.waitForMessage('admin@example.com'), '/auth/reset');
      clock.advance(2 * 3_600_000);
      const reset = await client.submit(
        '/auth/reset',
        { email: 'admin@example.com', token: link.searchParams.get('token')!, newPassword: 'a brand new secret' },
        { json: true },
      );
      expect(reset.status).to.equal(400);
      expect(reset.body).to.include({ success: false, error: 'Ce lien est invalide ou a expiré. Une nouvelle demande est nécessaire.' });
    });
  });

  describe('invitation', () => {
    beforeEach(() => createFirstAdmin(ctx, { email: 'admin@example.com', password: strongPassword, name: 'Admin' }));

    it('invitation token → setup → signed in (A7: credential created, verified, token deleted)', async () => {
      const { user, setupToken } = await createUserByAdmin(ctx, { email: 'carol@example.com', name: 'Carol' });
      await ctx.mailer.invitation(user.email, setupToken!);
      const email = await smtp.waitForMessage('carol@example.com');
      const link = smtp.linkIn(email, '/auth/setup');
      const client = new FormClient(app, clock);
      const mismatch = await client.submit(
        '/auth/setup',
        { email: 'carol@example.com', token: link.searchParams.get('token')!, newPassword: strongPassword, confirmPassword: 'something else' },
        { from: link.pathname + link.search },
      );
      expect(mismatch.status).to.equal(400);
      expect(mismatch.text).to.include('Les deux mots de passe ne correspondent pas.');
      const setup = await client.submit(
        '/auth/setup',
        { email: 'carol@example.com', token: link.searchParams.get('token')!, newPassword: strongPassword, confirmPassword: strongPassword },
        { from: link.pathname + link.search },
      );
      expect(setup.status).to.equal(303);
      // Signed in at once, where a login would have landed (an ordinary account: its profile).
      expect(setup.headers.location).to.equal('/account');
      expect(sessionCookie(setup)).to.match(/HttpOnly/i);
      expect(await ctx.db('app_auth_users').where({ id: user.id }).first()).to.include({ email_verified: true });
      expect(await ctx.db('app_auth_accounts').where({ user_id: user.id }).first()).to.have.property('provider', 'credential');
      expect(await ctx.db('app_auth_verifications').where({ user_id: user.id, kind: 'account_setup' })).to.have.length(0);
      expect((await sessionRows()).map((row) => row.user_id)).to.deep.equal([user.id]);
      const account = await client.get('/account');
      expect(account.status).to.equal(200);
      expect(account.text).to.include('Le compte est activé.');
      // The password chosen also opens a session the usual way.
      const login = await new FormClient(app, clock).submit('/auth/login', { email: 'carol@example.com', password: strongPassword });
      expect(login.status).to.equal(303);
      expect(login.headers.location).to.equal('/account');
    });

    it('activation replaces a session planted in the browser before it (fixation), and records the login', async () => {
      const { user, setupToken } = await createUserByAdmin(ctx, { email: 'dan@example.com', name: 'Dan' });
      // Someone's own session, planted in the invited person's browser.
      const planter = new FormClient(app, clock);
      await planter.submit('/auth/login', { email: 'admin@example.com', password: strongPassword });
      const planted = (await sessionRows())[0].sid;
      const client = new FormClient(app, clock);
      const plantedCookie = planter.agent.jar.getCookie('site.sid', { domain: '127.0.0.1', path: '/', secure: false, script: false });
      client.agent.jar.setCookie(plantedCookie!.toString());
      const from = `/auth/setup?email=dan%40example.com&token=${setupToken}`;
      const setup = await client.submit(
        '/auth/setup',
        { email: 'dan@example.com', token: setupToken!, newPassword: strongPassword, confirmPassword: strongPassword },
        { from },
      );
      expect(setup.status).to.equal(303);
      const rows = await sessionRows();
      expect(rows.map((row) => row.sid)).not.to.include(planted);
      expect(rows.map((row) => row.user_id)).to.deep.equal([user.id]);
      const events = await ctx.db('app_audit_events').where({ actor_id: user.id }).orderBy('id').select('action', 'details');
      expect(events).to.deep.equal([
        { action: 'auth.account_setup', details: {} },
        { action: 'auth.login', details: { method: 'password', via: 'account_setup' } },
      ]);
    });

    it('activation of an account whose role requires two-step verification lands on its enrolment', async () => {
      await ctx.db('app_auth_roles').where({ name: 'user' }).update({ require_2fa: true });
      const { user, setupToken } = await createUserByAdmin(ctx, { email: 'eve@example.com', name: 'Eve' });
      const setup = await new FormClient(app, clock).submit(
        '/auth/setup',
        { email: 'eve@example.com', token: setupToken!, newPassword: strongPassword, confirmPassword: strongPassword },
        { from: `/auth/setup?email=eve%40example.com&token=${setupToken}`, json: true },
      );
      expect(setup.status).to.equal(200);
      expect(setup.body).to.include({ success: true, redirect: '/account/2fa' });
      expect((await sessionRows()).map((row) => row.user_id)).to.deep.equal([user.id]);
    });
  });

  describe('logout', () => {
    beforeEach(() => createFirstAdmin(ctx, { email: 'admin@example.com', password: strongPassword, name: 'Admin' }));

    it('removes the session from storage and clears the cookie', async () => {
      const client = new FormClient(app, clock);
      await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword });
      expect(await sessionRows()).to.have.length(1);
      const admin = await client.get('/admin');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(admin.text)![1];
      const response = await client.agent.post('/auth/logout').type('form').send({ _csrf: csrf });
      expect(response.status).to.equal(303);
      expect(response.headers.location).to.equal('/auth/login?done=logout');
      expect(sessionCookie(response)).to.match(/Expires=Thu, 01 Jan 1970/);
      expect(await sessionRows()).to.have.length(0);
      expect((await client.get('/admin')).status).to.equal(303);
    });
  });

  describe('internal errors', () => {
    beforeEach(() => createFirstAdmin(ctx, { email: 'admin@example.com', password: strongPassword, name: 'Admin' }));

    it('shows a generic message on the error page, never the detail', async () => {
      const client = new FormClient(app, clock);
      const tokens = await client.tokens('/auth/login');
      clock.advance(2000);
      await ctx.db.raw('ALTER TABLE app_auth_accounts RENAME TO app_auth_accounts_away');
      try {
        const response = await client.agent
          .post('/auth/login')
          .type('form')
          .send({ ...tokens, _hp: '', email: 'admin@example.com', password: strongPassword });
        expect(response.status).to.equal(500);
        expect(response.text).to.include('Une erreur inattendue est survenue. Un nouvel essai sera possible plus tard.');
        expect(response.text).not.to.include('app_auth_accounts');
      } finally {
        await ctx.db.raw('ALTER TABLE app_auth_accounts_away RENAME TO app_auth_accounts');
      }
    });
  });
});
