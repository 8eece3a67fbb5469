// End-to-end flows of the API through a real SMTP server: invitation, address change,
// password change, reset link sent by an administrator.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import type { TestSmtpServer } from '../../support/smtp.js';
import { FormClient, useFakeClock } from '../../support/form-client.js';
import { PASSWORD, caller, logIn, makeUser } from '../../support/fixtures.js';
import { isTokenValid, issueToken } from '../../../models/auth/verifications.js';

describe('/app/api flows with email', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;
  const clock = useFakeClock();

  useAppWithSmtp({}, (createdApp, startedSmtp, createdCtx) => {
    app = createdApp;
    ctx = createdCtx;
    smtp = startedSmtp;
  });

  describe('invitation (POST /app/api/users without a password)', () => {
    it('creates an unverified account with no credential, emails the link, and the invited user sets a password and logs in', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const created = await request(app).post('/app/api/users').set('Cookie', admin.cookie).send({ email: 'Carol@Example.com', name: 'Carol' });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ email: 'carol@example.com', name: 'Carol', role: 'user', email_verified: false, invitation_sent: true });
      expect(await ctx.db('app_auth_accounts').where({ user_id: created.body.id })).to.have.length(0);
      const token = (await ctx.db('app_auth_verifications').where({ user_id: created.body.id, kind: 'account_setup' }).first())!;
      expect(token.expires_at.getTime() - Date.now()).to.be.closeTo(48 * 3_600_000, 60_000);

      const email = await smtp.waitForMessage('carol@example.com');
      const link = smtp.linkIn(email, '/auth/setup');
      expect(link.origin).to.equal('http://site.test');
      const client = new FormClient(app, clock);
      const setup = await client.submit(
        '/auth/setup',
        { email: 'carol@example.com', token: link.searchParams.get('token')!, newPassword: PASSWORD, confirmPassword: PASSWORD },
        { from: link.pathname + link.search },
      );
      expect(setup.status).to.equal(303);
      const login = await client.submit('/auth/login', { email: 'carol@example.com', password: PASSWORD });
      expect(login.status).to.equal(303);
      expect(await ctx.db('app_auth_users').where({ id: created.body.id }).first()).to.include({ email_verified: true });
    });

    it('creates a verified account that can log in at once when a password is given, and sends no email', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const created = await request(app).post('/app/api/users').set('Cookie', admin.cookie).send({ email: 'dan@example.com', name: 'Dan', password: PASSWORD });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ email_verified: true, role: 'user' });
      expect(created.body).to.have.all.keys(
        'id',
        'email',
        'name',
        'role',
        'roles',
        'email_verified',
        'image',
        'created_at',
        'updated_at',
        'suspended_at',
        'suspended_reason',
        'invitation',
      );
      expect(created.body).to.include({ invitation: null, suspended_at: null });
      const client = new FormClient(app, clock);
      expect((await client.submit('/auth/login', { email: 'dan@example.com', password: PASSWORD })).status).to.equal(303);
      expect(smtp.messages).to.have.length(0);
    });

    it('still creates the account when the invitation cannot be sent, and says so', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      smtp.setFailing(true);
      const created = await request(app).post('/app/api/users').set('Cookie', admin.cookie).send({ email: 'eve@example.com', name: 'Eve' });
      expect(created.status).to.equal(201);
      expect(created.body.invitation_sent).to.equal(false);
    });
  });

  describe('address change (POST /app/api/users/profile/email, the link GET /app/api/users/email/confirm, its button POST)', () => {
    it('sends the link to the new address, notifies the old one, and changes the address only once the page’s button is used', async () => {
      const me = await caller(ctx, { email: 'old@example.com' });
      const started = await request(app)
        .post('/app/api/users/profile/email')
        .set('Cookie', me.cookie)
        .send({ email: 'New@Example.com', current_password: PASSWORD });
      expect(started.status).to.equal(202);
      expect(started.body).to.deep.equal({ email: 'old@example.com', pending_email: 'new@example.com' });
      const confirmation = await smtp.waitForMessage('new@example.com');
      const notice = await smtp.waitForMessage('old@example.com');
      expect(notice.text).to.include('new@example.com');
      expect(await ctx.db('app_auth_users').where({ id: me.id }).first()).to.include({ email: 'old@example.com' });

      // The link still points at SPEC's URL.
      const link = smtp.linkIn(confirmation, '/app/api/users/email/confirm');
      expect(link.origin + link.pathname).to.equal('http://site.test/app/api/users/email/confirm');
      // A browser, not logged in (the link may be opened on another device): a page
      // with the button, nothing changed yet.
      const opened = await request(app)
        .get(link.pathname + link.search)
        .set('Accept', 'text/html');
      expect(opened.status).to.equal(200);
      expect(opened.headers['content-type']).to.match(/^text\/html/);
      expect(opened.headers['referrer-policy']).to.equal('no-referrer');
      expect(opened.headers['cache-control']).to.equal('no-store');
      expect(opened.text).to.include('action="/app/api/users/email/confirm"');
      const token = /name="token" value="([^"]+)"/.exec(opened.text)![1];
      expect(token).to.equal(link.searchParams.get('token'));
      expect(await ctx.db('app_auth_users').where({ id: me.id }).first()).to.include({ email: 'old@example.com' });

      // The button: a form post from our page.
      const confirmed = await request(app).post('/app/api/users/email/confirm').set('Sec-Fetch-Site', 'same-origin').type('form').send({ token });
      expect(confirmed.status).to.equal(303);
      expect(confirmed.headers.location).to.equal('/account?email_change=confirmed');
      expect(await ctx.db('app_auth_users').where({ id: me.id }).first()).to.include({ email: 'new@example.com', email_verified: true });

      const reusedPage = await request(app)
        .get(link.pathname + link.search)
        .set('Accept', 'text/html');
      expect(reusedPage.status).to.equal(200);
      expect(reusedPage.text).to.include('Ce lien de confirmation est invalide ou a expiré.').and.not.include('name="token"');
      const reused = await request(app).post('/app/api/users/email/confirm').send({ token });
      expect(reused.status).to.equal(400);
      expect(reused.body.code).to.equal('invalid_token');
      const reusedInBrowser = await request(app).post('/app/api/users/email/confirm').type('form').send({ token });
      expect(reusedInBrowser.headers.location).to.equal('/account?email_change=invalid');
    });

    it('changes nothing when the link is only opened (mail scanners), as a page or as JSON, however often', async () => {
      const me = await caller(ctx, { email: 'old@example.com' });
      await request(app).post('/app/api/users/profile/email').set('Cookie', me.cookie).send({ email: 'new@example.com', current_password: PASSWORD });
      const link = smtp.linkIn(await smtp.waitForMessage('new@example.com'), '/app/api/users/email/confirm');
      const before = await ctx.db('app_auth_verifications').where({ user_id: me.id }).orderBy('id');
      for (const accept of ['text/html', 'application/json', '*/*', 'text/html', 'application/json']) {
        const opened = await request(app)
          .get(link.pathname + link.search)
          .set('Accept', accept);
        expect(opened.status, accept).to.equal(200);
        if (accept === 'text/html') expect(opened.text).to.include('Confirmer le nouveau courriel');
        else expect(opened.body, accept).to.deep.equal({ valid: true });
      }
      expect(await ctx.db('app_auth_users').where({ id: me.id }).first()).to.include({ email: 'old@example.com' });
      expect(await ctx.db('app_auth_verifications').where({ user_id: me.id }).orderBy('id')).to.deep.equal(before);
      // A JSON client confirms with a POST, and gets the user.
      const confirmed = await request(app)
        .post('/app/api/users/email/confirm')
        .send({ token: link.searchParams.get('token') });
      expect(confirmed.status).to.equal(200);
      expect(confirmed.body).to.include({ id: me.id, email: 'new@example.com', email_verified: true });
      expect((await request(app).get(link.pathname + link.search)).body).to.deep.equal({ valid: false });
    });

    it('refuses the button posted from another site, changing nothing', async () => {
      const me = await caller(ctx, { email: 'old@example.com' });
      await request(app).post('/app/api/users/profile/email').set('Cookie', me.cookie).send({ email: 'new@example.com', current_password: PASSWORD });
      const link = smtp.linkIn(await smtp.waitForMessage('new@example.com'), '/app/api/users/email/confirm');
      const token = link.searchParams.get('token')!;
      const crossSite = await request(app).post('/app/api/users/email/confirm').set('Sec-Fetch-Site', 'cross-site').type('form').send({ token });
      expect(crossSite.status).to.equal(403);
      const foreignOrigin = await request(app).post('/app/api/users/email/confirm').set('Origin', 'https://evil.example').type('form').send({ token });
      expect(foreignOrigin.status).to.equal(403);
      expect(await ctx.db('app_auth_users').where({ id: me.id }).first()).to.include({ email: 'old@example.com' });
      expect((await request(app).get(link.pathname + link.search)).body).to.deep.equal({ valid: true });
    });

    it('shows the page again (HTML) when the button’s form is refused, while a JSON client keeps the API error', async () => {
      const mangled = await request(app).post('/app/api/users/email/confirm').type('form').send({ token: 'not<a>token' });
      expect(mangled.status).to.equal(400);
      expect(mangled.headers['content-type']).to.match(/^text\/html/);
      expect(mangled.text).to.include('Confirmation du nouveau courriel').and.include('role="alert"').and.not.include('name="token"');
      const json = await request(app).post('/app/api/users/email/confirm').send({ token: 'not<a>token' });
      expect(json.status).to.equal(400);
      expect(json.body.code).to.equal('validation_error');
    });

    it('refuses an expired link and leaves the address as it was', async () => {
      clock.install(app);
      const me = await caller(ctx, { email: 'old@example.com' });
      await request(app).post('/app/api/users/profile/email').set('Cookie', me.cookie).send({ email: 'new@example.com', current_password: PASSWORD });
      const link = smtp.linkIn(await smtp.waitForMessage('new@example.com'), '/app/api/users/email/confirm');
      clock.advance(24 * 3_600_000 + 1000);
      expect((await request(app).get(link.pathname + link.search)).body).to.deep.equal({ valid: false });
      const response = await request(app)
        .post('/app/api/users/email/confirm')
        .send({ token: link.searchParams.get('token') });
      expect(response.status).to.equal(400);
      expect(response.body.error).to.equal('Ce lien est invalide ou a expiré. Une nouvelle demande est nécessaire.');
      expect(await ctx.db('app_auth_users').where({ id: me.id }).first()).to.include({ email: 'old@example.com' });
    });

    it('refuses a wrong current password, sends nothing and issues no token', async () => {
      const me = await caller(ctx);
      const response = await request(app)
        .post('/app/api/users/profile/email')
        .set('Cookie', me.cookie)
        .send({ email: 'new@example.com', current_password: 'wrong password' });
      expect(response.status).to.equal(400);
      expect(response.body.code).to.equal('current_password_wrong');
      expect(await ctx.db('app_auth_verifications').where({ kind: 'email_change' })).to.have.length(0);
      expect(smtp.messages).to.have.length(0);
    });

    it('refuses an address another account already uses (409)', async () => {
      const me = await caller(ctx);
      await makeUser(ctx, { email: 'taken@example.com' });
      const response = await request(app)
        .post('/app/api/users/profile/email')
        .set('Cookie', me.cookie)
        .send({ email: 'taken@example.com', current_password: PASSWORD });
      expect(response.status).to.equal(409);
    });

    it('answers 503 when the confirmation cannot be sent', async () => {
      const me = await caller(ctx);
      smtp.setFailing(true);
      const response = await request(app)
        .post('/app/api/users/profile/email')
        .set('Cookie', me.cookie)
        .send({ email: 'new@example.com', current_password: PASSWORD });
      expect(response.status).to.equal(503);
    });
  });

  describe('password change (POST /app/api/users/profile/password)', () => {
    it('closes every other session, keeps the caller’s, and sends PasswordChangedEmail', async () => {
      const me = await caller(ctx, { email: 'me@example.com' });
      const other = await logIn(ctx, me);
      const response = await request(app)
        .post('/app/api/users/profile/password')
        .set('Cookie', me.cookie)
        .send({ current_password: PASSWORD, new_password: 'a brand new password' });
      expect(response.status).to.equal(204);
      expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', other.cookie)).status).to.equal(401);
      const mine = await request(app).get('/app/api/users/profile/sessions').set('Cookie', me.cookie);
      expect(mine.status).to.equal(200);
      expect(mine.body.items).to.have.length(1);
      await smtp.waitForMessage('me@example.com');
      const client = new FormClient(app, clock);
      expect((await client.submit('/auth/login', { email: 'me@example.com', password: PASSWORD })).status).to.equal(401);
      expect((await client.submit('/auth/login', { email: 'me@example.com', password: 'a brand new password' })).status).to.equal(303);
    });

    it('refuses a wrong current password and a new password under 8 characters, changing nothing', async () => {
      const me = await caller(ctx);
      const other = await logIn(ctx, me);
      const wrong = await request(app)
        .post('/app/api/users/profile/password')
        .set('Cookie', me.cookie)
        .send({ current_password: 'nope nope', new_password: 'a brand new password' });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.code).to.equal('current_password_wrong');
      const short = await request(app)
        .post('/app/api/users/profile/password')
        .set('Cookie', me.cookie)
        .send({ current_password: PASSWORD, new_password: 'short' });
      expect(short.status).to.equal(400);
      expect(short.body.details[0].field).to.equal('new_password');
      expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', other.cookie)).status).to.equal(200);
    });
  });

  describe('administrator actions that send email', () => {
    it('POST /users/:id/send-password-reset emails a reset link to the user', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx, { email: 'target@example.com' });
      const response = await request(app).post(`/app/api/users/${target.id}/send-password-reset`).set('Cookie', admin.cookie);
      expect(response.status).to.equal(204);
      const link = smtp.linkIn(await smtp.waitForMessage('target@example.com'), '/auth/reset');
      expect(link.searchParams.get('email')).to.equal('target@example.com');
    });

    it('PUT /users/:id/email sends the confirmation link to the new address and the notice to the current one; the link makes the change', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx, { email: 'before@example.com' });
      const started = await request(app).put(`/app/api/users/${target.id}/email`).set('Cookie', admin.cookie).send({ email: 'After@Example.com' });
      expect(started.status).to.equal(202);
      expect(started.body).to.deep.equal({ email: 'before@example.com', pending_email: 'after@example.com' });
      const confirmation = await smtp.waitForMessage('after@example.com');
      expect(confirmation.subject).to.include('Confirmation de la nouvelle adresse');
      const notice = await smtp.waitForMessage('before@example.com');
      expect(notice.subject).to.include('Changement de l’adresse de courriel');
      expect(notice.text).to.include('after@example.com');
      expect(smtp.messages).to.have.length(2);
      expect((await ctx.db('app_auth_users').where({ id: target.id }).first())!.email).to.equal('before@example.com');
      const link = smtp.linkIn(confirmation, '/app/api/users/email/confirm');
      const confirmed = await request(app)
        .post('/app/api/users/email/confirm')
        .send({ token: link.searchParams.get('token') });
      expect(confirmed.status).to.equal(200);
      expect(confirmed.body).to.include({ id: target.id, email: 'after@example.com', email_verified: true });
    });

    it('PUT /users/:id/email on an account still waiting for its invitation moves it at once and sends a new invitation there; the old link dies', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const created = await request(app).post('/app/api/users').set('Cookie', admin.cookie).send({ email: 'wrong@example.com', name: 'Invitee' });
      const first = smtp.linkIn(await smtp.waitForMessage('wrong@example.com'), '/auth/setup');
      smtp.clear();
      const moved = await request(app).put(`/app/api/users/${created.body.id}/email`).set('Cookie', admin.cookie).send({ email: 'Right@Example.com' });
      expect(moved.status).to.equal(200);
      expect(moved.body).to.deep.equal({ email: 'right@example.com', pending_email: null });
      expect(await ctx.db('app_auth_users').where({ id: created.body.id }).first()).to.include({ email: 'right@example.com', email_verified: false });
      const invitation = await smtp.waitForMessage('right@example.com');
      expect(invitation.subject).to.equal('Invitation à activer un compte — Site de test');
      const second = smtp.linkIn(invitation, '/auth/setup');
      expect(second.searchParams.get('email')).to.equal('right@example.com');
      await ctx.background.settle();
      // Nothing to the old address (it was a mistake), and its link is void.
      expect(smtp.messages.map((message) => message.to)).to.deep.equal([['right@example.com']]);
      expect(await isTokenValid(ctx, 'account_setup', 'wrong@example.com', first.searchParams.get('token')!)).to.equal(false);
      expect(await ctx.db('app_auth_verifications').where({ user_id: created.body.id })).to.have.length(1);
      const client = new FormClient(app, clock);
      const setup = await client.submit(
        '/auth/setup',
        { email: 'right@example.com', token: second.searchParams.get('token')!, newPassword: PASSWORD, confirmPassword: PASSWORD },
        { from: second.pathname + second.search },
      );
      expect(setup.status).to.equal(303);
      expect((await client.submit('/auth/login', { email: 'right@example.com', password: PASSWORD })).status).to.equal(303);
    });

    it('PUT /users/:id/email on an invited account answers 503 mail_failed when the new invitation cannot be sent, and changes nothing', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const invitee = await makeUser(ctx, { email: 'wrong@example.com', password: null, verified: false });
      const { token } = await issueToken(ctx, 'account_setup', invitee);
      smtp.setFailing(true);
      const response = await request(app).put(`/app/api/users/${invitee.id}/email`).set('Cookie', admin.cookie).send({ email: 'right@example.com' });
      expect(response.status).to.equal(503);
      expect(response.body.code).to.equal('mail_failed');
      expect((await ctx.db('app_auth_users').where({ id: invitee.id }).first())!.email).to.equal('wrong@example.com');
      expect(await isTokenValid(ctx, 'account_setup', 'wrong@example.com', token)).to.equal(true);
    });

    it('POST /users/:id/send-password-reset is refused for an account that outranks the caller, and for the caller’s own; nothing is sent and the pending link stays', async () => {
      const manager = await caller(ctx, { permissions: ['admin.access', 'users.view', 'users.manage'], email: 'manager@example.com' });
      const boss = await makeUser(ctx, { role: 'admin', email: 'boss@example.com' });
      const pending = await issueToken(ctx, 'password_reset', boss);
      const refused = await request(app).post(`/app/api/users/${boss.id}/send-password-reset`).set('Cookie', manager.cookie);
      expect(refused.status).to.equal(403);
      expect(refused.body.code).to.equal('target_outranks_caller');
      const own = await request(app).post(`/app/api/users/${manager.id}/send-password-reset`).set('Cookie', manager.cookie);
      expect(own.status).to.equal(403);
      expect(own.body.code).to.equal('use_profile');
      expect(own.body.error).to.include('/account');
      await ctx.background.settle();
      expect(smtp.messages).to.have.length(0);
      expect(await isTokenValid(ctx, 'password_reset', 'boss@example.com', pending.token)).to.equal(true);
      // An account holding nothing the manager lacks gets its link.
      const peer = await makeUser(ctx, { permissions: ['users.view'], email: 'peer@example.com' });
      expect((await request(app).post(`/app/api/users/${peer.id}/send-password-reset`).set('Cookie', manager.cookie)).status).to.equal(204);
      await smtp.waitForMessage('peer@example.com');
    });

    it('PUT /users/:id/email answers 503 mail_failed and changes nothing when the confirmation cannot be sent', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx, { email: 'before@example.com' });
      smtp.setFailing(true);
      const response = await request(app).put(`/app/api/users/${target.id}/email`).set('Cookie', admin.cookie).send({ email: 'after@example.com' });
      expect(response.status).to.equal(503);
      expect(response.body.code).to.equal('mail_failed');
      await ctx.background.settle();
      expect(smtp.messages).to.have.length(0);
      expect((await ctx.db('app_auth_users').where({ id: target.id }).first())!.email).to.equal('before@example.com');
    });

    it('POST /users/:id/send-password-reset answers 503 mail_failed when the link cannot be sent', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx);
      smtp.setFailing(true);
      const response = await request(app).post(`/app/api/users/${target.id}/send-password-reset`).set('Cookie', admin.cookie);
      expect(response.status).to.equal(503);
      expect(response.body.code).to.equal('mail_failed');
    });

    it('POST /users/:id/resend-invitation sends a new setup link (the old one dies), refused for an account that has a password', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const created = await request(app).post('/app/api/users').set('Cookie', admin.cookie).send({ email: 'invitee@example.com', name: 'Invitee' });
      const first = smtp.linkIn(await smtp.waitForMessage('invitee@example.com'), '/auth/setup');
      smtp.clear();
      const resent = await request(app).post(`/app/api/users/${created.body.id}/resend-invitation`).set('Cookie', admin.cookie);
      expect(resent.status).to.equal(204);
      const second = smtp.linkIn(await smtp.waitForMessage('invitee@example.com'), '/auth/setup');
      expect(second.searchParams.get('token')).not.to.equal(first.searchParams.get('token'));
      expect(await ctx.db('app_auth_verifications').where({ user_id: created.body.id, kind: 'account_setup' })).to.have.length(1);
      const active = await makeUser(ctx);
      const refused = await request(app).post(`/app/api/users/${active.id}/resend-invitation`).set('Cookie', admin.cookie);
      expect(refused.status).to.equal(409);
      expect(refused.body.code).to.equal('account_active');
      smtp.setFailing(true);
      const failed = await request(app).post(`/app/api/users/${created.body.id}/resend-invitation`).set('Cookie', admin.cookie);
      expect(failed.status).to.equal(503);
      expect(failed.body.code).to.equal('mail_failed');
    });

    it('PUT /users/:id/password sets the password, closes the user’s sessions and notifies the user', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await caller(ctx, { email: 'target@example.com' });
      const response = await request(app).put(`/app/api/users/${target.id}/password`).set('Cookie', admin.cookie).send({ password: 'set by the admin' });
      expect(response.status).to.equal(204);
      expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', target.cookie)).status).to.equal(401);
      await smtp.waitForMessage('target@example.com');
    });
  });
});
