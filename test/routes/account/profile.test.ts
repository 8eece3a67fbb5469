// The profile page at /account (any session) and /admin/profile (admin guard): name,
// address change with its two emails, password, picture, sessions.
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import { resolveStoredFile } from '../../../lib/uploads.js';
import { checkPassword } from '../../../models/auth/credentials.js';
import type { AppContext } from '../../../lib/context.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import type { TestSmtpServer } from '../../support/smtp.js';
import { PASSWORD, PNG_1X1, logIn } from '../../support/fixtures.js';
import { AdminClient, textOf } from '../../support/admin-client.js';

describe('/account profile page', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;

  useAppWithSmtp({}, (createdApp, startedSmtp, createdCtx) => {
    app = createdApp;
    ctx = createdCtx;
    smtp = startedSmtp;
  });

  it('needs a session only: redirects a visitor to the login page, shows a plain user the page without admin sections', async () => {
    const anonymous = await request(app).get('/account');
    expect(anonymous.status).to.equal(303);
    expect(anonymous.headers.location).to.equal('/auth/login?next=%2Faccount');
    const client = await AdminClient.as(app, { name: 'Plain User' });
    const page = await client.get('/account');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<title>Mon profil — Site de test</title>').and.include('Plain User');
    expect(page.text).not.to.include('href="/admin/users"').and.not.include('href="/admin"');
    const admin = await AdminClient.as(app, { role: 'admin' });
    const inside = await admin.get('/admin/profile');
    expect(inside.status).to.equal(200);
    expect(inside.text).to.include('action="/admin/profile/name"');
  });

  it('changes the name; re-renders an empty one with its message', async () => {
    const client = await AdminClient.as(app, { name: 'Before' });
    const bad = await client.post('/account/name', { name: '   ' });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.include('id="profile-name-error"');
    const ok = await client.post('/account/name', { name: 'After' });
    expect(ok.status).to.equal(303);
    expect(ok.headers.location).to.equal('/account');
    expect((await ctx.db('app_auth_users').where({ id: client.user.id }).first())!.name).to.equal('After');
    expect(textOf((await client.follow(ok)).text)).to.include('Le nom est enregistré.');
  });

  it('works the same from /admin/profile and comes back there', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    const ok = await client.post('/admin/profile/name', { name: 'Inside' }, '/admin/profile');
    expect(ok.status).to.equal(303);
    expect(ok.headers.location).to.equal('/admin/profile');
  });

  it('starts an address change: wrong password refused with the input kept, then the link to the new address and the notice to the old', async () => {
    const client = await AdminClient.as(app, { email: 'old@example.com' });
    const wrong = await client.post('/account/email', { email: 'new@example.com', current_password: 'not the password' });
    expect(wrong.status).to.equal(400);
    expect(wrong.text).to.include('id="profile-email-password-error"').and.include('value="new@example.com"');
    expect(wrong.text).not.to.include('not the password');
    const ok = await client.post('/account/email', { email: 'new@example.com', current_password: PASSWORD });
    expect(ok.status).to.equal(303);
    expect(textOf((await client.follow(ok)).text)).to.include('Un lien de confirmation est envoyé à new@example.com.');
    const confirm = await smtp.waitForMessage('new@example.com');
    await smtp.waitForMessage('old@example.com');
    const link = smtp.linkIn(confirm, '/app/api/users/email/confirm');
    const opened = await request(app)
      .get(link.pathname + link.search)
      .set('Accept', 'text/html');
    expect(opened.status).to.equal(200);
    expect((await ctx.db('app_auth_users').where({ id: client.user.id }).first())!.email).to.equal('old@example.com');
    const followed = await request(app)
      .post('/app/api/users/email/confirm')
      .type('form')
      .send({ token: /name="token" value="([^"]+)"/.exec(opened.text)![1] });
    expect(followed.status).to.equal(303);
    expect(followed.headers.location).to.equal('/account?email_change=confirmed');
    expect((await ctx.db('app_auth_users').where({ id: client.user.id }).first())!.email).to.equal('new@example.com');
    expect(textOf((await client.get(followed.headers.location)).text)).to.include('Le nouveau courriel est confirmé.');
  });

  it('says on the page that the confirmation link could not be sent, and issues nothing usable', async () => {
    const client = await AdminClient.as(app, { email: 'old@example.com' });
    smtp.setFailing(true);
    const response = await client.post('/account/email', { email: 'new@example.com', current_password: PASSWORD });
    expect(response.status).to.equal(503);
    expect(textOf(response.text)).to.include('Le courriel n’a pas pu être envoyé.');
    expect((await ctx.db('app_auth_users').where({ id: client.user.id }).first())!.email).to.equal('old@example.com');
  });

  it('changes the password: mismatch and wrong current password refused, then other sessions closed', async () => {
    const client = await AdminClient.as(app, { email: 'pw@example.com' });
    const other = await logIn(ctx, client.user);
    const mismatch = await client.post('/account/password', {
      current_password: PASSWORD,
      new_password: 'a new good secret',
      confirm_password: 'different one',
    });
    expect(mismatch.status).to.equal(400);
    expect(mismatch.text).to.include('id="profile-confirm-password-error"');
    const wrong = await client.post('/account/password', {
      current_password: 'nope nope',
      new_password: 'a new good secret',
      confirm_password: 'a new good secret',
    });
    expect(wrong.status).to.equal(400);
    expect(textOf(wrong.text)).to.include('Le mot de passe actuel est incorrect.');
    const ok = await client.post('/account/password', { current_password: PASSWORD, new_password: 'a new good secret', confirm_password: 'a new good secret' });
    expect(ok.status).to.equal(303);
    expect(await checkPassword(ctx, client.user.id, 'a new good secret')).to.equal(true);
    expect(await ctx.db('app_auth_sessions').where({ sid: other.sid })).to.have.length(0);
    expect(await ctx.db('app_auth_sessions').where({ sid: client.user.sid })).to.have.length(1);
    await smtp.waitForMessage('pw@example.com');
  });

  it('uploads a picture, refuses a file that is not an image with the message on the page, and removes it after confirmation', async () => {
    const client = await AdminClient.as(app);
    const token = await client.token();
    const notImage = await request(app)
      .post('/account/picture')
      .set('Cookie', client.cookies())
      .field('_csrf', token)
      .attach('picture', Buffer.from('plain text'), 'a.png');
    expect(notImage.status).to.equal(415);
    expect(textOf(notImage.text)).to.include('Seules les images PNG, JPEG et WebP sont acceptées.');
    const noToken = await request(app).post('/account/picture').set('Cookie', client.cookies()).attach('picture', PNG_1X1, 'a.png');
    expect(noToken.status).to.equal(403);
    const ok = await request(app).post('/account/picture').set('Cookie', client.cookies()).field('_csrf', token).attach('picture', PNG_1X1, 'a.png');
    expect(ok.status).to.equal(303);
    const image = (await ctx.db('app_auth_users').where({ id: client.user.id }).first())!.image!;
    expect(image).to.match(/^\/uploads\/avatars\/[a-f0-9]{32}\.png$/);
    expect(existsSync(resolveStoredFile(ctx, image)!)).to.equal(true);
    const removed = await client.post('/account/picture/delete');
    expect(removed.status).to.equal(303);
    expect((await ctx.db('app_auth_users').where({ id: client.user.id }).first())!.image).to.equal(null);
    expect(existsSync(resolveStoredFile(ctx, image)!)).to.equal(false);
    expect(ctx.config.uploadDir).to.be.a('string');
  });

  it('lists the sessions, marks the current one, disconnects one, then all the others', async () => {
    const client = await AdminClient.as(app);
    const second = await logIn(ctx, client.user, { userAgent: 'Second browser' });
    const third = await logIn(ctx, client.user, { userAgent: 'Third browser' });
    const page = await client.get('/account');
    expect(page.text).to.include('Second browser').and.include('cette session');
    expect(page.text).to.include('Déconnecter toutes les autres sessions');
    const bad = await client.post('/account/sessions/not-hex/delete');
    expect(bad.status).to.equal(400);
    const foreign = await client.post(`/account/sessions/${'f'.repeat(32)}/delete`);
    expect(foreign.status).to.equal(404);
    const one = await client.post(`/account/sessions/${second.publicId}/delete`);
    expect(one.status).to.equal(303);
    expect(await ctx.db('app_auth_sessions').where({ sid: second.sid })).to.have.length(0);
    const others = await client.post('/account/sessions/delete-others');
    expect(others.status).to.equal(303);
    expect(textOf((await client.follow(others)).text)).to.include('1 autre session déconnectée.');
    expect(await ctx.db('app_auth_sessions').where({ sid: third.sid })).to.have.length(0);
    expect(await ctx.db('app_auth_sessions').where({ sid: client.user.sid })).to.have.length(1);
  });

  it('logs out when the current session is disconnected', async () => {
    const client = await AdminClient.as(app);
    const response = await client.post(`/account/sessions/${client.user.publicId}/delete`);
    expect(response.status).to.equal(303);
    expect(response.headers.location).to.equal('/auth/login?done=logout');
    expect(await ctx.db('app_auth_sessions').where({ sid: client.user.sid })).to.have.length(0);
  });
});
