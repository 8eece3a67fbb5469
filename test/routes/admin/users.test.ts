// /admin/users: every form refused without users.manage, re-rendered with its
// messages and the input on invalid data, and applied (database state) on success.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import type { TestSmtpServer } from '../../support/smtp.js';
import { PASSWORD, makeUser } from '../../support/fixtures.js';
import { AdminClient, textOf } from '../../support/admin-client.js';

describe('/admin/users screens', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;

  useAppWithSmtp({}, (createdApp, startedSmtp, createdCtx) => {
    app = createdApp;
    ctx = createdCtx;
    smtp = startedSmtp;
  });

  const admin = () => AdminClient.as(app, { role: 'admin', name: 'Ada Admin' });
  const viewer = () => AdminClient.as(app, { permissions: ['admin.access', 'users.view'] });

  describe('list and detail', () => {
    it('lists accounts with a search and pages of 25, titled «Utilisateurs — <APP_NAME>»', async () => {
      const client = await admin();
      for (let n = 0; n < 27; n++) await makeUser(ctx, { email: `bulk${n}@example.com`, name: `Bulk ${n}` });
      await makeUser(ctx, { email: 'zoe@example.com', name: 'Zoé Zed' });
      const first = await client.get('/admin/users');
      expect(first.status).to.equal(200);
      expect(first.text).to.include('<title>Utilisateurs — Site de test</title>');
      expect(textOf(first.text)).to.include('29 comptes');
      expect(first.text).to.include('Page 1 sur 2');
      const second = await client.get('/admin/users?page=2');
      expect(second.text).to.include('zoe@example.com');
      const found = await client.get('/admin/users?search=zed');
      expect(textOf(found.text)).to.include('1 compte pour « zed »');
      expect(found.text).to.include('zoe@example.com').and.not.include('bulk1@example.com');
    });

    it('shows name, address, role, roles, verified state and sessions count on the detail page', async () => {
      const client = await admin();
      const target = await makeUser(ctx, { name: 'Bob Target', email: 'bob@example.com', verified: false });
      const page = await client.get(`/admin/users/${target.id}`);
      expect(page.status).to.equal(200);
      const text = textOf(page.text);
      expect(text).to.include('Bob Target').and.include('bob@example.com').and.include('Rôles Utilisateur');
      expect(text).to.include('Courriel vérifié Non').and.include('Sessions actives 0');
      expect(text).to.include('Marquer le courriel comme vérifié');
    });

    it('shows the detail without any form to a user holding users.view only, and refuses users.manage screens', async () => {
      const client = await viewer();
      const target = await makeUser(ctx, { verified: false });
      const page = await client.get(`/admin/users/${target.id}`);
      expect(page.status).to.equal(200);
      expect(page.text).not.to.include('Marquer le courriel comme vérifié').and.not.include(`action="/admin/users/${target.id}/email"`);
      expect((await client.get('/admin/users/new')).status).to.equal(403);
    });

    it('refuses the users screens without users.view (403) and answers 404 for an unknown or malformed id', async () => {
      const client = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view'] });
      expect((await client.get('/admin/users')).status).to.equal(403);
      const boss = await admin();
      expect((await boss.get('/admin/users/999999')).status).to.equal(404);
      expect((await boss.get('/admin/users/1e3')).status).to.equal(404);
    });
  });

  describe('POST /admin/users (Inviter un utilisateur)', () => {
    it('is refused without users.manage', async () => {
      const client = await viewer();
      const response = await client.post('/admin/users', { name: 'X', email: 'x@example.com', role: 'user' });
      expect(response.status).to.equal(403);
      expect(await ctx.db('app_auth_users').where({ email: 'x@example.com' })).to.have.length(0);
    });

    it('re-renders the form with the messages next to the fields and the input kept, never the password', async () => {
      const client = await admin();
      const response = await client.post('/admin/users', { name: '', email: 'not-an-address', role: 'user', password: 'secret-typed' }, '/admin/users/new');
      expect(response.status).to.equal(400);
      expect(response.text).to.include('id="invite-name-error"').and.include('id="invite-email-error"');
      expect(response.text).to.include('value="not-an-address"').and.not.include('secret-typed');
      expect(response.text).to.include('role="alert"');
    });

    it('refuses an address already used, keeping the input', async () => {
      const client = await admin();
      await makeUser(ctx, { email: 'taken@example.com' });
      const response = await client.post('/admin/users', { name: 'Taken', email: 'taken@example.com', role: 'user' }, '/admin/users/new');
      expect(response.status).to.equal(409);
      expect(textOf(response.text)).to.include('Un compte existe déjà pour ce courriel.');
      expect(response.text).to.include('value="Taken"');
    });

    it('without a password creates an unverified account and sends the invitation, then shows it in a flash message', async () => {
      const client = await admin();
      const response = await client.post('/admin/users', { name: 'Carol', email: 'Carol@Example.com', role: 'user', password: '' }, '/admin/users/new');
      expect(response.status).to.equal(303);
      const created = (await ctx.db('app_auth_users').where({ email: 'carol@example.com' }).first())!;
      expect(created).to.include({ name: 'Carol', email_verified: false });
      expect(response.headers.location).to.equal(`/admin/users/${created.id}`);
      expect(await ctx.db('app_auth_verifications').where({ user_id: created.id, kind: 'account_setup' })).to.have.length(1);
      const mail = await smtp.waitForMessage('carol@example.com');
      expect(smtp.linkIn(mail, '/auth/setup').searchParams.get('email')).to.equal('carol@example.com');
      const shown = await client.follow(response);
      expect(textOf(shown.text)).to.include('Le compte est créé. Une invitation est envoyée à carol@example.com.');
      // A flash message shows once.
      expect(textOf((await client.get(`/admin/users/${created.id}`)).text)).not.to.include('Une invitation est envoyée');
    });

    it('with a password creates a verified account with a credential and sends nothing', async () => {
      const client = await admin();
      const response = await client.post('/admin/users', { name: 'Dan', email: 'dan@example.com', role: 'admin', password: PASSWORD }, '/admin/users/new');
      expect(response.status).to.equal(303);
      const created = (await ctx.db('app_auth_users').where({ email: 'dan@example.com' }).first())!;
      expect(created.email_verified).to.equal(true);
      expect(await ctx.db('app_auth_accounts').where({ user_id: created.id })).to.have.length(1);
      expect(smtp.messages).to.have.length(0);
    });

    it('says so when the invitation cannot be sent, the account being created anyway', async () => {
      const client = await admin();
      smtp.setFailing(true);
      const response = await client.post('/admin/users', { name: 'Eve', email: 'eve@example.com', role: 'user' }, '/admin/users/new');
      expect(response.status).to.equal(303);
      const shown = await client.follow(response);
      expect(textOf(shown.text)).to.include('l’invitation n’a pas pu être envoyée');
      expect(shown.text).to.include('role="alert"');
    });
  });

  describe('forms of the detail page', () => {
    it('marks the address verified («Marquer le courriel comme vérifié»), refused without users.manage', async () => {
      const target = await makeUser(ctx, { verified: false });
      const refused = await (await viewer()).post(`/admin/users/${target.id}/verify`, {}, '/admin/users');
      expect(refused.status).to.equal(403);
      const client = await admin();
      const response = await client.post(`/admin/users/${target.id}/verify`, {}, `/admin/users/${target.id}`);
      expect(response.status).to.equal(303);
      expect((await ctx.db('app_auth_users').where({ id: target.id }).first())!.email_verified).to.equal(true);
      const shown = await client.follow(response);
      expect(textOf(shown.text)).to.include('Le courriel est marqué comme vérifié.');
      expect(shown.text).not.to.include('>Marquer le courriel comme vérifié<');
    });

    it('edits name and primary role; refuses an empty name and an unknown role with the input kept', async () => {
      const target = await makeUser(ctx, { name: 'Old Name' });
      expect((await (await viewer()).post(`/admin/users/${target.id}`, { name: 'N', role: 'user' }, '/admin/users')).status).to.equal(403);
      const client = await admin();
      const bad = await client.post(`/admin/users/${target.id}`, { name: '', role: 'user' }, `/admin/users/${target.id}`);
      expect(bad.status).to.equal(400);
      expect(bad.text).to.include('id="edit-name-error"');
      const unknown = await client.post(`/admin/users/${target.id}`, { name: 'Kept Name', role: 'ghost' }, `/admin/users/${target.id}`);
      expect(unknown.status).to.equal(400);
      expect(textOf(unknown.text)).to.include('Ce rôle n’existe pas.');
      expect(unknown.text).to.include('value="Kept Name"');
      const ok = await client.post(`/admin/users/${target.id}`, { name: 'New Name', role: 'admin' }, `/admin/users/${target.id}`);
      expect(ok.status).to.equal(303);
      const row = (await ctx
        .db('app_auth_users as u')
        .join('app_auth_roles as r', 'r.id', 'u.role_id')
        .where('u.id', target.id)
        .first('u.name', 'r.name as role'))!;
      expect(row).to.deep.equal({ name: 'New Name', role: 'admin' });
    });

    it('refuses to take admin from the last administrator and says why', async () => {
      const client = await admin();
      const response = await client.post(`/admin/users/${client.user.id}`, { name: 'Ada Admin', role: 'user' }, `/admin/users/${client.user.id}`);
      expect(response.status).to.equal(409);
      expect(textOf(response.text)).to.include('Le dernier administrateur ne peut pas perdre le rôle admin.');
    });

    it('changes the address through a link to the new one, with a notice to the current one; refuses an invalid one with the input kept', async () => {
      const target = await makeUser(ctx, { email: 'before@example.com' });
      expect((await (await viewer()).post(`/admin/users/${target.id}/email`, { email: 'after@example.com' }, '/admin/users')).status).to.equal(403);
      const client = await admin();
      const bad = await client.post(`/admin/users/${target.id}/email`, { email: 'after@' }, `/admin/users/${target.id}`);
      expect(bad.status).to.equal(400);
      expect(bad.text).to.include('id="email-email-error"').and.include('value="after@"');
      const ok = await client.post(`/admin/users/${target.id}/email`, { email: 'After@Example.com' }, `/admin/users/${target.id}`);
      expect(ok.status).to.equal(303);
      expect(textOf((await client.follow(ok)).text)).to.include('Un lien de confirmation est envoyé à after@example.com.');
      const confirmation = await smtp.waitForMessage('after@example.com');
      expect(confirmation.subject).to.include('Confirmation de la nouvelle adresse');
      const notice = await smtp.waitForMessage('before@example.com');
      expect(notice.subject).to.include('Changement de l’adresse de courriel');
      expect(notice.text).to.include('after@example.com');
      expect((await ctx.db('app_auth_users').where({ id: target.id }).first())!.email).to.equal('before@example.com');
      const link = smtp.linkIn(confirmation, '/app/api/users/email/confirm');
      const opened = await request(app)
        .get(link.pathname + link.search)
        .set('Accept', 'text/html');
      expect(opened.status).to.equal(200);
      expect((await ctx.db('app_auth_users').where({ id: target.id }).first())!.email).to.equal('before@example.com');
      const followed = await request(app)
        .post('/app/api/users/email/confirm')
        .type('form')
        .send({ token: /name="token" value="([^"]+)"/.exec(opened.text)![1] });
      expect(followed.status).to.equal(303);
      expect(await ctx.db('app_auth_users').where({ id: target.id }).first()).to.include({ email: 'after@example.com', email_verified: true });
    });

    it('says on the page that the address-change link could not be sent, and changes nothing', async () => {
      const target = await makeUser(ctx, { email: 'before@example.com' });
      const client = await admin();
      smtp.setFailing(true);
      const response = await client.post(`/admin/users/${target.id}/email`, { email: 'after@example.com' }, `/admin/users/${target.id}`);
      expect(response.status).to.equal(503);
      expect(textOf(response.text)).to.include('Le courriel n’a pas pu être envoyé.');
      expect((await ctx.db('app_auth_users').where({ id: target.id }).first())!.email).to.equal('before@example.com');
    });

    it('sets a password (sessions closed); refuses a short one without echoing it', async () => {
      const target = await makeUser(ctx, { email: 'pw@example.com' });
      await ctx
        .db('app_auth_sessions')
        .insert({ sid: 'x'.repeat(32), sess: '{}', expire: new Date(Date.now() + 3_600_000), user_id: target.id, public_id: 'a'.repeat(32) });
      expect((await (await viewer()).post(`/admin/users/${target.id}/password`, { password: 'long enough pw' }, '/admin/users')).status).to.equal(403);
      const client = await admin();
      const bad = await client.post(`/admin/users/${target.id}/password`, { password: 'short' }, `/admin/users/${target.id}`);
      expect(bad.status).to.equal(400);
      expect(textOf(bad.text)).to.include('au moins 8 caractères');
      expect(bad.text).not.to.include('value="short"');
      const ok = await client.post(`/admin/users/${target.id}/password`, { password: 'a brand new secret' }, `/admin/users/${target.id}`);
      expect(ok.status).to.equal(303);
      expect(await ctx.db('app_auth_sessions').where({ user_id: target.id })).to.have.length(0);
      await smtp.waitForMessage('pw@example.com');
    });

    it('sends a reset link, refused without users.manage', async () => {
      const target = await makeUser(ctx, { email: 'reset@example.com' });
      expect((await (await viewer()).post(`/admin/users/${target.id}/send-password-reset`, {}, '/admin/users')).status).to.equal(403);
      const client = await admin();
      const ok = await client.post(`/admin/users/${target.id}/send-password-reset`, {}, `/admin/users/${target.id}`);
      expect(ok.status).to.equal(303);
      const mail = await smtp.waitForMessage('reset@example.com');
      expect(smtp.linkIn(mail, '/auth/reset').searchParams.get('token')).to.be.a('string');
      expect(textOf((await client.follow(ok)).text)).to.include('Un lien de réinitialisation est envoyé à reset@example.com.');
    });

    it('says on the page that the reset link could not be sent', async () => {
      const target = await makeUser(ctx, { email: 'reset@example.com' });
      const client = await admin();
      smtp.setFailing(true);
      const response = await client.post(`/admin/users/${target.id}/send-password-reset`, {}, `/admin/users/${target.id}`);
      expect(response.status).to.equal(503);
      expect(textOf(response.text)).to.include('Le courriel n’a pas pu être envoyé.');
    });

    it('resends the invitation of an account without a password («Renvoyer l’invitation»), not of an active one', async () => {
      const client = await admin();
      const invited = await client.post('/admin/users', { name: 'Ivy', email: 'ivy@example.com', role: 'user' }, '/admin/users/new');
      const created = (await ctx.db('app_auth_users').where({ email: 'ivy@example.com' }).first())!;
      const first = smtp.linkIn(await smtp.waitForMessage('ivy@example.com'), '/auth/setup');
      smtp.clear();
      const detail = await client.follow(invited);
      expect(detail.text).to.include(`action="/admin/users/${created.id}/resend-invitation"`);
      expect((await (await viewer()).post(`/admin/users/${created.id}/resend-invitation`, {}, '/admin/users')).status).to.equal(403);
      const resent = await client.post(`/admin/users/${created.id}/resend-invitation`, {}, `/admin/users/${created.id}`);
      expect(resent.status).to.equal(303);
      expect(textOf((await client.follow(resent)).text)).to.include('Une nouvelle invitation est envoyée à ivy@example.com');
      const second = smtp.linkIn(await smtp.waitForMessage('ivy@example.com'), '/auth/setup');
      expect(second.searchParams.get('token')).not.to.equal(first.searchParams.get('token'));
      const active = await makeUser(ctx);
      expect((await client.get(`/admin/users/${active.id}`)).text).not.to.include('resend-invitation');
      const refused = await client.post(`/admin/users/${active.id}/resend-invitation`, {}, `/admin/users/${active.id}`);
      expect(refused.status).to.equal(409);
      expect(textOf(refused.text)).to.include('Ce compte est déjà activé.');
    });

    it('assigns and revokes an extra role; refuses an invalid role id', async () => {
      const target = await makeUser(ctx);
      const editor = await ctx.db('app_auth_roles').insert({ name: 'redacteur', label: 'Rédaction', description: '', system: false }).returning('id');
      const roleId = editor[0].id;
      expect((await (await viewer()).post(`/admin/users/${target.id}/roles`, { role_id: String(roleId) }, '/admin/users')).status).to.equal(403);
      const client = await admin();
      const bad = await client.post(`/admin/users/${target.id}/roles`, { role_id: 'abc' }, `/admin/users/${target.id}`);
      expect(bad.status).to.equal(400);
      expect(bad.text).to.include('id="roles-role-error"');
      const added = await client.post(`/admin/users/${target.id}/roles`, { role_id: String(roleId) }, `/admin/users/${target.id}`);
      expect(added.status).to.equal(303);
      expect(await ctx.db('app_auth_user_roles').where({ user_id: target.id, role_id: roleId })).to.have.length(1);
      const detail = await client.follow(added);
      expect(textOf(detail.text)).to.include('Le rôle est attribué.').and.include('Confirmer le retrait');
      expect((await (await viewer()).post(`/admin/users/${target.id}/roles/${roleId}/delete`, {}, '/admin/users')).status).to.equal(403);
      const removed = await client.post(`/admin/users/${target.id}/roles/${roleId}/delete`, {}, `/admin/users/${target.id}`);
      expect(removed.status).to.equal(303);
      expect(await ctx.db('app_auth_user_roles').where({ user_id: target.id })).to.have.length(0);
    });

    it('refuses a manager changing an account that holds permissions the manager lacks', async () => {
      const manager = await AdminClient.as(app, { permissions: ['admin.access', 'users.view', 'users.manage'] });
      const boss = await makeUser(ctx, { role: 'admin', name: 'Boss' });
      const response = await manager.post(`/admin/users/${boss.id}/email`, { email: 'stolen@example.com' }, `/admin/users/${boss.id}`);
      expect(response.status).to.equal(403);
      expect(textOf(response.text)).to.include('des permissions absentes du compte connecté : il ne peut pas être modifié depuis celui-ci');
      expect((await ctx.db('app_auth_users').where({ id: boss.id }).first())!.email).not.to.equal('stolen@example.com');
    });

    it('on one’s own page, shows no address, password, reset or verify form but a link to the profile, and refuses those posts (403 use_profile)', async () => {
      const client = await admin();
      await ctx.db('app_auth_users').where({ id: client.user.id }).update({ email_verified: false });
      const own = await client.get(`/admin/users/${client.user.id}`);
      expect(own.status).to.equal(200);
      expect(own.text).to.include('href="/admin/profile"');
      for (const action of ['email', 'password', 'send-password-reset', 'verify']) {
        expect(own.text, action).not.to.include(`action="/admin/users/${client.user.id}/${action}"`);
      }
      // Name and roles stay (within the caller's own permissions).
      expect(own.text).to.include(`action="/admin/users/${client.user.id}"`);
      const from = `/admin/users/${client.user.id}`;
      const refusals = [
        await client.post(`${from}/email`, { email: 'elsewhere@example.com' }, from),
        await client.post(`${from}/password`, { password: 'chosen without the old one' }, from),
        await client.post(`${from}/send-password-reset`, {}, from),
        await client.post(`${from}/verify`, {}, from),
      ];
      for (const response of refusals) {
        expect(response.status).to.equal(403);
        expect(textOf(response.text)).to.include('se changent depuis la page « Mon profil »');
      }
      expect(await ctx.db('app_auth_users').where({ id: client.user.id }).first()).to.include({ email: client.user.email, email_verified: false });
      expect(await ctx.db('app_auth_verifications').where({ user_id: client.user.id })).to.have.length(0);
      await ctx.background.settle();
      expect(smtp.messages).to.have.length(0);
      const renamed = await client.post(from, { name: 'Ada Renamed', role: 'admin' }, from);
      expect(renamed.status).to.equal(303);
    });

    it('refuses a reset link to an account that outranks the manager, and sends nothing', async () => {
      const manager = await AdminClient.as(app, { permissions: ['admin.access', 'users.view', 'users.manage'] });
      const boss = await makeUser(ctx, { role: 'admin', email: 'boss@example.com' });
      const response = await manager.post(`/admin/users/${boss.id}/send-password-reset`, {}, `/admin/users/${boss.id}`);
      expect(response.status).to.equal(403);
      expect(textOf(response.text)).to.include('des permissions absentes du compte connecté : il ne peut pas être modifié depuis celui-ci');
      await ctx.background.settle();
      expect(smtp.messages).to.have.length(0);
      expect(await ctx.db('app_auth_verifications').where({ user_id: boss.id })).to.have.length(0);
    });

    it('moves an account still waiting for its invitation at once and invites the new address', async () => {
      const client = await admin();
      await client.post('/admin/users', { name: 'Ivy', email: 'wrong@example.com', role: 'user' }, '/admin/users/new');
      const created = (await ctx.db('app_auth_users').where({ email: 'wrong@example.com' }).first())!;
      const first = smtp.linkIn(await smtp.waitForMessage('wrong@example.com'), '/auth/setup');
      smtp.clear();
      const detail = await client.get(`/admin/users/${created.id}`);
      expect(textOf(detail.text)).to.include('le courriel change tout de suite et une nouvelle invitation part vers la nouvelle adresse');
      const moved = await client.post(`/admin/users/${created.id}/email`, { email: 'right@example.com' }, `/admin/users/${created.id}`);
      expect(moved.status).to.equal(303);
      expect(textOf((await client.follow(moved)).text)).to.include(
        'Le courriel du compte est maintenant right@example.com. Une nouvelle invitation y est envoyée',
      );
      expect((await ctx.db('app_auth_users').where({ id: created.id }).first())!.email).to.equal('right@example.com');
      const second = smtp.linkIn(await smtp.waitForMessage('right@example.com'), '/auth/setup');
      expect(second.searchParams.get('token')).not.to.equal(first.searchParams.get('token'));
      await ctx.background.settle();
      expect(smtp.messages).to.have.length(1);
      const tokens = await ctx.db('app_auth_verifications').where({ user_id: created.id });
      expect(tokens.map((row) => [row.kind, row.identifier])).to.deep.equal([['account_setup', 'right@example.com']]);
    });

    it('refuses a form without its CSRF token, or from another site', async () => {
      const target = await makeUser(ctx, { verified: false });
      const client = await admin();
      await client.get('/admin/users');
      const noToken = await client.postRaw(`/admin/users/${target.id}/verify`, {});
      expect(noToken.status).to.equal(403);
      expect((await ctx.db('app_auth_users').where({ id: target.id }).first())!.email_verified).to.equal(false);
    });
  });
});
