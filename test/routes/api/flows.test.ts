// End-to-end flows of the API through a real SMTP server: invitation, address change,
// password change, reset link sent by an administrator.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import type { TestSmtpServer } from '../../support/smtp.js';
import { FormClient, useFakeClock } from '../auth/helpers.js';
import { PASSWORD, caller, logIn, makeUser } from '../../support/fixtures.js';

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
      expect(created.body).to.have.all.keys('id', 'email', 'name', 'role', 'roles', 'email_verified', 'image', 'created_at', 'updated_at');
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

  describe('address change (POST /app/api/users/profile/email, GET /app/api/users/email/confirm)', () => {
    it('sends the link to the new address, notifies the old one, and changes the address only once the link is followed', async () => {
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

      const link = smtp.linkIn(confirmation, '/app/api/users/email/confirm');
      // A browser, not logged in (the link may be opened on another device).
      const followed = await request(app)
        .get(link.pathname + link.search)
        .set('Accept', 'text/html');
      expect(followed.status).to.equal(303);
      expect(followed.headers.location).to.equal('/account?email_change=confirmed');
      expect(await ctx.db('app_auth_users').where({ id: me.id }).first()).to.include({ email: 'new@example.com', email_verified: true });

      const reused = await request(app).get(link.pathname + link.search);
      expect(reused.status).to.equal(400);
      expect(reused.body.code).to.equal('invalid_token');
      const reusedInBrowser = await request(app)
        .get(link.pathname + link.search)
        .set('Accept', 'text/html');
      expect(reusedInBrowser.headers.location).to.equal('/account?email_change=invalid');
    });

    it('refuses an expired link and leaves the address as it was', async () => {
      clock.install(app);
      const me = await caller(ctx, { email: 'old@example.com' });
      await request(app).post('/app/api/users/profile/email').set('Cookie', me.cookie).send({ email: 'new@example.com', current_password: PASSWORD });
      const link = smtp.linkIn(await smtp.waitForMessage('new@example.com'), '/app/api/users/email/confirm');
      clock.advance(24 * 3_600_000 + 1000);
      const response = await request(app).get(link.pathname + link.search);
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
      const confirmed = await request(app).get(link.pathname + link.search);
      expect(confirmed.status).to.equal(200);
      expect(confirmed.body).to.include({ id: target.id, email: 'after@example.com', email_verified: true });
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
