// Suspension, restoration and deletion of accounts through /app/api/users, with a real
// SMTP server and the injected clock: what each answers, what the database holds after
// it (sessions, tokens, audit events), and what a session or a login can still do.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { recordAudit } from '../../../models/audit.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import { PASSWORD, PNG_1X1, caller, logIn, makeRole, makeUser } from '../../support/fixtures.js';
import { FormClient, useFakeClock } from '../../support/form-client.js';
import type { TestSmtpServer } from '../../support/smtp.js';

describe('account lifecycle (/app/api/users)', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;
  const clock = useFakeClock();

  useAppWithSmtp({}, (createdApp, startedSmtp, context) => {
    app = createdApp;
    smtp = startedSmtp;
    ctx = context;
  });

  beforeEach(() => clock.install(app));

  const events = (action: string) => ctx.db('app_audit_events').where({ action }).orderBy('id');
  const sessionsOf = (userId: number) => ctx.db('app_auth_sessions').where({ user_id: userId });

  async function loginAs(email: string, password: string) {
    return new FormClient(app, clock).submit('/auth/login', { email, password }, { json: true });
  }

  describe('POST /app/api/users/:id/suspend', () => {
    it('closes every session of the account in the same request: an open session’s next request is anonymous', async () => {
      const admin = await caller(ctx, { role: 'admin', name: 'Alice Admin' });
      const target = await makeUser(ctx, { name: 'Bruno' });
      const phone = await logIn(ctx, target, { userAgent: 'phone' });
      const laptop = await logIn(ctx, target, { userAgent: 'laptop' });
      expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', phone.cookie)).status).to.equal(200);

      const response = await request(app).post(`/app/api/users/${target.id}/suspend`).set('Cookie', admin.cookie).send({ reason: ' Comportement abusif ' });

      expect(response.status).to.equal(200);
      expect(response.body).to.include({ id: target.id, suspended_reason: 'Comportement abusif' });
      expect(new Date(response.body.suspended_at).getTime()).to.equal(clock.current);
      expect(await sessionsOf(target.id)).to.have.length(0);
      for (const session of [phone, laptop]) {
        const next = await request(app).get('/app/api/users/profile/sessions').set('Cookie', session.cookie);
        expect(next.status).to.equal(401);
        expect(next.body.code).to.equal('unauthenticated');
      }
      const [event, ...more] = await events('user.suspended');
      expect(more).to.have.length(0);
      expect(event).to.include({ actor_id: admin.id, actor_name: 'Alice Admin', target_type: 'user', target_id: String(target.id), target_label: 'Bruno' });
      expect(event.details).to.deep.equal({ reason: 'Comportement abusif', sessions_closed: 2, links_voided: 0 });
      // The caller's own session is untouched.
      expect(await sessionsOf(admin.id)).to.have.length(1);
    });

    it('refuses the login with «Ce compte est suspendu.» only after the right password; a wrong one gets the usual answer', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx, { email: 'bruno@example.com' });
      await request(app).post(`/app/api/users/${target.id}/suspend`).set('Cookie', admin.cookie).send({});

      const right = await loginAs('bruno@example.com', PASSWORD);
      expect(right.status).to.equal(401);
      expect(right.body).to.include({ success: false, error: 'Ce compte est suspendu.', code: 'account_suspended' });

      const wrong = await loginAs('bruno@example.com', 'not the password');
      const unknown = await loginAs('nobody@example.com', 'not the password');
      expect(wrong.status).to.equal(401);
      expect(wrong.body).to.deep.equal(unknown.body);
      expect(JSON.stringify(wrong.body)).not.to.include('suspendu');

      const page = await new FormClient(app, clock).submit('/auth/login', { email: 'bruno@example.com', password: PASSWORD });
      expect(page.status).to.equal(401);
      expect(page.text).to.include('Ce compte est suspendu.');
      expect(await sessionsOf(target.id)).to.have.length(0);
    });

    it('drops at its next request a session that exists while the account is suspended (a login that raced the suspension)', async () => {
      const target = await makeUser(ctx);
      const session = await logIn(ctx, target);
      await ctx.db('app_auth_users').where({ id: target.id }).update({ suspended_at: new Date() });
      const next = await request(app).get('/app/api/users/profile/sessions').set('Cookie', session.cookie);
      expect(next.status).to.equal(401);
      expect(await sessionsOf(target.id)).to.have.length(0);
    });

    it('voids the links sent before (reset, invitation), and /auth/forgot then answers as for an unknown address and sends nothing', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx, { email: 'bruno@example.com', name: 'Bruno' });
      const hashBefore = (await ctx.db('app_auth_accounts').where({ user_id: target.id }).first())!.password_hash;
      const browser = new FormClient(app, clock);
      expect((await browser.submit('/auth/forgot', { email: 'bruno@example.com' })).status).to.equal(200);
      const resetLink = smtp.linkIn(await smtp.waitForMessage('bruno@example.com'), '/auth/reset');
      const invited = await request(app).post('/app/api/users').set('Cookie', admin.cookie).send({ email: 'guest@example.com', name: 'Guest' });
      expect(invited.status).to.equal(201);
      const setupLink = smtp.linkIn(await smtp.waitForMessage('guest@example.com'), '/auth/setup');

      for (const id of [target.id, invited.body.id as number]) {
        expect((await request(app).post(`/app/api/users/${id}/suspend`).set('Cookie', admin.cookie).send({})).status).to.equal(200);
      }
      expect(await ctx.db('app_auth_verifications').whereIn('user_id', [target.id, invited.body.id as number])).to.have.length(0);
      const [bruno] = await events('user.suspended');
      expect(bruno.details).to.deep.include({ links_voided: 1 });

      const reset = await browser.submit(
        '/auth/reset',
        { email: 'bruno@example.com', token: resetLink.searchParams.get('token')!, newPassword: 'a brand new password' },
        { json: true, from: '/auth/reset' },
      );
      expect(reset.status).to.equal(400);
      expect(reset.body).to.include({ success: false, code: 'invalid_token' });
      expect((await ctx.db('app_auth_accounts').where({ user_id: target.id }).first())!.password_hash).to.equal(hashBefore);
      const setup = await browser.submit(
        '/auth/setup',
        {
          email: 'guest@example.com',
          token: setupLink.searchParams.get('token')!,
          newPassword: 'a brand new password',
          confirmPassword: 'a brand new password',
        },
        { json: true, from: '/auth/setup' },
      );
      expect(setup.status).to.equal(400);
      expect(setup.body).to.include({ success: false, code: 'invalid_token' });
      expect(await ctx.db('app_auth_accounts').where({ user_id: invited.body.id as number })).to.have.length(0);

      smtp.clear();
      const suspended = await browser.submit('/auth/forgot', { email: 'bruno@example.com' }, { json: true });
      const unknown = await browser.submit('/auth/forgot', { email: 'nobody@example.com' }, { json: true });
      expect(suspended.status).to.equal(200);
      expect(suspended.body).to.deep.equal(unknown.body);
      await ctx.background.settle();
      expect(smtp.messages).to.have.length(0);
      expect(await ctx.db('app_auth_verifications').where({ user_id: target.id })).to.have.length(0);
    });

    it('ends a login waiting for its second factor', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx);
      await ctx.db('app_auth_pending_logins').insert({ token_hash: 'a'.repeat(64), user_id: target.id, expires_at: new Date(clock.current + 60_000) });
      const response = await request(app).post(`/app/api/users/${target.id}/suspend`).set('Cookie', admin.cookie).send({});
      expect(response.status).to.equal(200);
      expect(await ctx.db('app_auth_pending_logins').where({ user_id: target.id })).to.have.length(0);
    });

    it('refuses one’s own account (403 own_account), an account that outranks the caller (403), and a second suspension (409)', async () => {
      const manager = await caller(ctx, { permissions: ['admin.access', 'users.view', 'users.manage'] });
      const administrator = await makeUser(ctx, { role: 'admin' });
      const plain = await makeUser(ctx);

      const self = await request(app).post(`/app/api/users/${manager.id}/suspend`).set('Cookie', manager.cookie).send({});
      expect(self.status).to.equal(403);
      expect(self.body.code).to.equal('own_account');
      expect(self.body.error).to.equal('Son propre compte ne peut être ni suspendu ni rétabli.');

      const outranking = await request(app).post(`/app/api/users/${administrator.id}/suspend`).set('Cookie', manager.cookie).send({});
      expect(outranking.status).to.equal(403);
      expect(outranking.body.code).to.equal('target_outranks_caller');

      expect((await request(app).post(`/app/api/users/${plain.id}/suspend`).set('Cookie', manager.cookie).send({})).status).to.equal(200);
      const again = await request(app).post(`/app/api/users/${plain.id}/suspend`).set('Cookie', manager.cookie).send({ reason: 'Encore' });
      expect(again.status).to.equal(409);
      expect(again.body).to.include({ code: 'already_suspended', error: 'Ce compte est déjà suspendu.' });

      const rows = await ctx.db('app_auth_users').whereIn('id', [manager.id, administrator.id]).whereNotNull('suspended_at');
      expect(rows).to.have.length(0);
      expect((await ctx.db('app_auth_users').where({ id: plain.id }).first())!.suspended_reason).to.equal(null);
      expect(await events('user.suspended')).to.have.length(1);
    });

    it('refuses the last active administrator (409 last_admin); a suspended administrator does not count as another', async () => {
      // Holds every permission without being an administrator: nothing outranks it.
      const manager = await caller(ctx, { permissions: await ctx.db('app_auth_permissions').pluck('key') });
      const first = await makeUser(ctx, { role: 'admin' });
      const second = await makeUser(ctx, { role: 'admin' });
      expect((await request(app).post(`/app/api/users/${second.id}/suspend`).set('Cookie', manager.cookie).send({})).status).to.equal(200);

      const last = await request(app).post(`/app/api/users/${first.id}/suspend`).set('Cookie', manager.cookie).send({});
      expect(last.status).to.equal(409);
      expect(last.body.code).to.equal('last_admin');
      expect(last.body.error).to.match(/dernier administrateur actif/);
      expect((await ctx.db('app_auth_users').where({ id: first.id }).first())!.suspended_at).to.equal(null);
    });
  });

  describe('DELETE /app/api/users/:id/suspend', () => {
    it('restores the account: the password opens a session again; restoring twice is a 409', async () => {
      const admin = await caller(ctx, { role: 'admin', name: 'Alice Admin' });
      const target = await makeUser(ctx, { email: 'bruno@example.com', name: 'Bruno' });
      await request(app).post(`/app/api/users/${target.id}/suspend`).set('Cookie', admin.cookie).send({ reason: 'Vérification' });

      const restored = await request(app).delete(`/app/api/users/${target.id}/suspend`).set('Cookie', admin.cookie);
      expect(restored.status).to.equal(200);
      expect(restored.body).to.include({ suspended_at: null, suspended_reason: null });
      const [event, ...more] = await events('user.restored');
      expect(more).to.have.length(0);
      expect(event).to.include({ actor_id: admin.id, target_id: String(target.id), target_label: 'Bruno' });

      const login = await loginAs('bruno@example.com', PASSWORD);
      expect(login.status).to.equal(200);
      expect(await sessionsOf(target.id)).to.have.length(1);

      const twice = await request(app).delete(`/app/api/users/${target.id}/suspend`).set('Cookie', admin.cookie);
      expect(twice.status).to.equal(409);
      expect(twice.body).to.include({ code: 'not_suspended', error: 'Ce compte n’est pas suspendu.' });
      expect(await events('user.restored')).to.have.length(1);
    });

    it('refuses an account that outranks the caller', async () => {
      const manager = await caller(ctx, { permissions: ['admin.access', 'users.view', 'users.manage'] });
      const administrator = await makeUser(ctx, { role: 'admin' });
      await ctx.db('app_auth_users').where({ id: administrator.id }).update({ suspended_at: new Date() });
      const response = await request(app).delete(`/app/api/users/${administrator.id}/suspend`).set('Cookie', manager.cookie);
      expect(response.status).to.equal(403);
      expect(response.body.code).to.equal('target_outranks_caller');
      expect((await ctx.db('app_auth_users').where({ id: administrator.id }).first())!.suspended_at).not.to.equal(null);
    });
  });

  describe('DELETE /app/api/users/:id', () => {
    /** Every column that references app_auth_users, read from the catalogue (other modules' tables included). */
    async function referencingColumns(): Promise<Array<{ table: string; column: string; action: string }>> {
      const { rows } = await ctx.db.raw<{ rows: Array<{ table: string; column: string; action: string }> }>(
        `SELECT c.conrelid::regclass::text AS table, a.attname AS column, c.confdeltype AS action
         FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
         WHERE c.contype = 'f' AND c.confrelid = 'app_auth_users'::regclass`,
      );
      return rows;
    }

    it('leaves no row of the account behind except the audit events’ name snapshot; pages keep their content, author emptied', async () => {
      const admin = await caller(ctx, { role: 'admin', name: 'Alice Admin' });
      const extra = await makeRole(ctx, [], 'redaction');
      const writer = await caller(ctx, {
        email: 'writer@example.com',
        name: 'Wanda Writer',
        permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'],
      });
      await ctx.db('app_auth_user_roles').insert({ user_id: writer.id, role_id: extra });
      await logIn(ctx, writer);
      const picture = await request(app)
        .post('/app/api/users/profile/picture')
        .set('Cookie', writer.cookie)
        .attach('picture', PNG_1X1, { filename: 'me.png', contentType: 'image/png' });
      expect(picture.status).to.equal(200);
      const pictureFile = path.join(ctx.config.uploadDir, picture.body.image.replace('/uploads/', ''));
      expect(existsSync(pictureFile)).to.equal(true);
      const created = await request(app)
        .post('/app/api/admin/pages')
        .set('Cookie', writer.cookie)
        .send({ title: 'Histoire du village', blocks: [{ type: 'paragraph', text: 'Il était une fois.' }] });
      expect(created.status).to.equal(201);
      const media = await request(app)
        .post('/app/api/admin/media')
        .set('Cookie', writer.cookie)
        .attach('file', PNG_1X1, { filename: 'i.png', contentType: 'image/png' });
      expect(media.status).to.equal(201);
      // A pending link (a reset requested by an administrator).
      expect((await request(app).post(`/app/api/users/${writer.id}/send-password-reset`).set('Cookie', admin.cookie)).status).to.equal(204);
      await smtp.waitForMessage('writer@example.com');
      const columns = await referencingColumns();
      const referencing = async () => {
        const found: string[] = [];
        for (const { table, column } of columns) {
          const count = await ctx.db(table).where(column, writer.id).count<{ count: string }[]>({ count: '*' });
          if (Number(count[0].count) > 0) found.push(`${table}.${column}`);
        }
        return found.sort();
      };
      expect(await referencing()).to.include.members([
        'app_auth_accounts.user_id',
        'app_auth_sessions.user_id',
        'app_auth_user_roles.user_id',
        'app_auth_verifications.user_id',
        'app_pages.author_id',
        'app_pages.updated_by',
        'app_pages_media.uploaded_by',
      ]);

      const response = await request(app).delete(`/app/api/users/${writer.id}`).set('Cookie', admin.cookie);

      expect(response.status).to.equal(204);
      expect(await referencing()).to.deep.equal([]);
      expect(await ctx.db('app_auth_users').where({ id: writer.id })).to.have.length(0);
      expect(await ctx.db('app_auth_users').where({ email: 'writer@example.com' })).to.have.length(0);
      expect(existsSync(pictureFile)).to.equal(false);
      // The page keeps its content, its author emptied.
      const page = await ctx.db('app_pages').where({ id: created.body.id }).first();
      expect(page).to.include({ title: 'Histoire du village', author_id: null, updated_by: null });
      // The block as created, with the id the server gave it.
      expect(page!.blocks).to.deep.equal([{ id: created.body.blocks[0].id, type: 'paragraph', text: 'Il était une fois.' }]);
      expect(await ctx.db('app_pages_media').where({ id: media.body.id }).first()).to.include({ uploaded_by: null });
      // The audit log keeps the name, never the address.
      const [event, ...more] = await events('user.deleted');
      expect(more).to.have.length(0);
      expect(event).to.include({ actor_id: admin.id, actor_name: 'Alice Admin', target_id: String(writer.id), target_label: 'Wanda Writer' });
      const mentions = await ctx
        .db('app_audit_events')
        .where({ target_id: String(writer.id) })
        .orWhere({ actor_id: writer.id });
      expect(JSON.stringify(mentions)).not.to.include('writer@example.com');
      // Its session cookie opens nothing any more.
      expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', writer.cookie)).status).to.equal(401);
    });

    it('revokes a pending invitation: its link no longer sets a password', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const invited = await request(app).post('/app/api/users').set('Cookie', admin.cookie).send({ email: 'guest@example.com', name: 'Guest' });
      expect(invited.status).to.equal(201);
      const link = smtp.linkIn(await smtp.waitForMessage('guest@example.com'), '/auth/setup');
      expect((await request(app).get(link.pathname + link.search)).text).not.to.include('invalide ou a expiré');

      expect((await request(app).delete(`/app/api/users/${invited.body.id}`).set('Cookie', admin.cookie)).status).to.equal(204);

      expect(await ctx.db('app_auth_verifications').where({ identifier: 'guest@example.com' })).to.have.length(0);
      const page = await request(app).get(link.pathname + link.search);
      expect(page.text).to.include('Ce lien est invalide ou a expiré.');
      const setup = await new FormClient(app, clock).submit(
        '/auth/setup',
        {
          email: 'guest@example.com',
          token: link.searchParams.get('token')!,
          newPassword: 'a brand new password',
          confirmPassword: 'a brand new password',
        },
        { json: true, from: '/auth/setup' },
      );
      expect(setup.status).to.equal(400);
      expect(await ctx.db('app_auth_users').where({ email: 'guest@example.com' })).to.have.length(0);
    });

    it('refuses one’s own account (403 use_profile), an account that outranks the caller (403) and the last active administrator (409)', async () => {
      const manager = await caller(ctx, { permissions: ['admin.access', 'users.view', 'users.manage'] });
      const administrator = await makeUser(ctx, { role: 'admin' });
      const self = await request(app).delete(`/app/api/users/${manager.id}`).set('Cookie', manager.cookie);
      expect(self.status).to.equal(403);
      expect(self.body.code).to.equal('use_profile');
      expect(self.body.error).to.match(/Mon profil/);
      const outranking = await request(app).delete(`/app/api/users/${administrator.id}`).set('Cookie', manager.cookie);
      expect(outranking.status).to.equal(403);
      expect(outranking.body.code).to.equal('target_outranks_caller');

      const peer = await caller(ctx, { permissions: await ctx.db('app_auth_permissions').pluck('key') });
      const last = await request(app).delete(`/app/api/users/${administrator.id}`).set('Cookie', peer.cookie);
      expect(last.status).to.equal(409);
      expect(last.body.code).to.equal('last_admin');
      expect(await ctx.db('app_auth_users').whereIn('id', [manager.id, administrator.id])).to.have.length(2);
      expect(await events('user.deleted')).to.have.length(0);
    });

    it('answers 404 for an unknown account', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const response = await request(app).delete('/app/api/users/999999').set('Cookie', admin.cookie);
      expect(response.status).to.equal(404);
      expect(response.body.code).to.equal('not_found');
    });
  });

  describe('DELETE /app/api/users/profile', () => {
    it('refuses a wrong current password (400) and deletes the account with the right one (204, logged out)', async () => {
      await makeUser(ctx, { role: 'admin' });
      const me = await caller(ctx, { name: 'Zoé', email: 'zoe@example.com' });
      const other = await logIn(ctx, me);

      const wrong = await request(app).delete('/app/api/users/profile').set('Cookie', me.cookie).send({ current_password: 'not it' });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.code).to.equal('current_password_wrong');
      expect(await ctx.db('app_auth_users').where({ id: me.id })).to.have.length(1);
      expect(await events('account.deleted_by_self')).to.have.length(0);

      const right = await request(app).delete('/app/api/users/profile').set('Cookie', me.cookie).send({ current_password: PASSWORD });
      expect(right.status).to.equal(204);
      expect(([] as string[]).concat(right.headers['set-cookie'] ?? []).some((line) => /^site\.sid=;/.test(line))).to.equal(true);
      expect(await ctx.db('app_auth_users').where({ id: me.id })).to.have.length(0);
      expect(await sessionsOf(me.id)).to.have.length(0);
      expect(await ctx.db('app_auth_accounts').where({ user_id: me.id })).to.have.length(0);
      const [event, ...more] = await events('account.deleted_by_self');
      expect(more).to.have.length(0);
      expect(event).to.include({ actor_id: me.id, actor_name: 'Zoé', target_id: String(me.id), target_label: 'Zoé' });
      expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', other.cookie)).status).to.equal(401);
    });

    it('refuses the last active administrator (409 last_admin)', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const suspended = await makeUser(ctx, { role: 'admin' });
      await ctx.db('app_auth_users').where({ id: suspended.id }).update({ suspended_at: new Date() });
      const response = await request(app).delete('/app/api/users/profile').set('Cookie', admin.cookie).send({ current_password: PASSWORD });
      expect(response.status).to.equal(409);
      expect(response.body.code).to.equal('last_admin');
      expect(await ctx.db('app_auth_users').where({ id: admin.id })).to.have.length(1);
      expect(await sessionsOf(admin.id)).to.have.length(1);
    });
  });

  describe('GET /app/api/users/profile/export', () => {
    it('downloads the person’s profile, roles, sessions and the audit events about them, and no secret', async () => {
      const admin = await caller(ctx, { role: 'admin', name: 'Alice Admin' });
      const editor = await makeRole(ctx, [], 'redacteur');
      const user = await makeUser(ctx, { name: 'Zoé', email: 'zoe@example.com' });
      await ctx.db('app_auth_user_roles').insert({ user_id: user.id, role_id: editor });
      // Events by someone else about me (suspended, then restored), one of mine about
      // something else, and one that is none of my business.
      await request(app).post(`/app/api/users/${user.id}/suspend`).set('Cookie', admin.cookie).send({});
      await request(app).delete(`/app/api/users/${user.id}/suspend`).set('Cookie', admin.cookie);
      await recordAudit(ctx, {
        actor: { id: user.id, name: 'Zoé' },
        ip: '127.0.0.1',
        action: 'page.created',
        target: { type: 'page', id: 7, label: 'Accueil' },
      });
      await recordAudit(ctx, {
        actor: { id: admin.id, name: 'Alice Admin' },
        ip: null,
        action: 'role.created',
        target: { type: 'role', id: user.id, label: 'x' },
      });
      const me = { ...user, ...(await logIn(ctx, user)) };

      const response = await request(app).get('/app/api/users/profile/export').set('Cookie', me.cookie);

      expect(response.status).to.equal(200);
      expect(response.headers['content-disposition']).to.equal(`attachment; filename="mes-donnees-${me.id}.json"`);
      expect(response.headers['cache-control']).to.equal('no-store');
      expect(response.body).to.have.all.keys('exported_at', 'profile', 'roles', 'sessions', 'audit_events');
      expect(response.body.profile).to.include({ id: me.id, email: 'zoe@example.com', name: 'Zoé' });
      expect(response.body.roles.map((role: { name: string; primary: boolean }) => [role.name, role.primary])).to.deep.equal([
        ['user', true],
        ['redacteur', false],
      ]);
      expect(response.body.sessions).to.have.length(1);
      expect(response.body.sessions[0]).to.include({ current: true, device: 'Appareil inconnu' });
      const audit = response.body.audit_events as Array<{
        id: number;
        action: string;
        actor: { id: number } | null;
        target: { type: string; id: string } | null;
      }>;
      const about = (event: (typeof audit)[number]) => event.actor?.id === me.id || (event.target?.type === 'user' && event.target.id === String(me.id));
      expect(audit.every(about)).to.equal(true);
      const expected = (await ctx.db('app_audit_events').orderBy('id', 'desc')).filter(
        (row) => row.actor_id === me.id || (row.target_type === 'user' && row.target_id === String(me.id)),
      );
      expect(audit.map((event) => event.id)).to.deep.equal(expected.map((row) => row.id));
      expect(audit.map((event) => event.action)).to.include.members(['user.suspended', 'user.restored', 'page.created']);
      expect(audit.map((event) => event.action)).not.to.include('role.created');
      const text = JSON.stringify(response.body);
      expect(text).not.to.include('password_hash');
      expect(text).not.to.include(me.sid);
    });

    it('needs a session (401)', async () => {
      const response = await request(app).get('/app/api/users/profile/export');
      expect(response.status).to.equal(401);
    });
  });
});
