import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { caller, makeRole, makeUser } from '../../support/fixtures.js';

describe('/app/api/users', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  describe('GET /app/api/users', () => {
    it('lists users as {items, total, limit, offset}, 50 by default, with the user JSON of DESIGN §3', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      for (let index = 0; index < 55; index++) await makeUser(ctx, { email: `bulk${index}@example.com` });
      const response = await request(app).get('/app/api/users').set('Cookie', admin.cookie);
      expect(response.status).to.equal(200);
      expect(response.body).to.include({ total: 56, limit: 50, offset: 0 });
      expect(response.body.items).to.have.length(50);
      // DESIGN §3's fields, plus the account's lifecycle (suspension, pending invitation).
      expect(response.body.items[0]).to.have.all.keys(
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
      const last = await request(app).get('/app/api/users?limit=50&offset=50').set('Cookie', admin.cookie);
      expect(last.body.items).to.have.length(6);
      const beyond = await request(app).get('/app/api/users?offset=500').set('Cookie', admin.cookie);
      expect(beyond.body).to.deep.equal({ items: [], total: 56, limit: 50, offset: 500 });
    });

    it('searches by email or name, case-insensitively, treating % and _ literally', async () => {
      const admin = await caller(ctx, { role: 'admin', email: 'boss@example.com' });
      await makeUser(ctx, { email: 'alice@example.com', name: 'Alice Martin' });
      await makeUser(ctx, { email: 'bob@example.org', name: 'Robert MARTIN' });
      await makeUser(ctx, { email: 'carol_x@example.com', name: 'Carol' });
      const byName = await request(app).get('/app/api/users?search=martin').set('Cookie', admin.cookie);
      expect(byName.body.items.map((user: { email: string }) => user.email)).to.deep.equal(['alice@example.com', 'bob@example.org']);
      expect(byName.body.total).to.equal(2);
      const byEmail = await request(app).get('/app/api/users?search=EXAMPLE.ORG').set('Cookie', admin.cookie);
      expect(byEmail.body.total).to.equal(1);
      const literal = await request(app).get('/app/api/users?search=_x').set('Cookie', admin.cookie);
      expect(literal.body.items.map((user: { email: string }) => user.email)).to.deep.equal(['carol_x@example.com']);
      expect((await request(app).get('/app/api/users?search=%25').set('Cookie', admin.cookie)).body.total).to.equal(0);
    });

    it('refuses a limit over 200', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const response = await request(app).get('/app/api/users?limit=201').set('Cookie', admin.cookie);
      expect(response.status).to.equal(400);
      expect(response.body.details[0].field).to.equal('limit');
    });

    it('applies a removed permission on the very next request', async () => {
      const viewer = await caller(ctx, { permissions: ['admin.access', 'users.view'] });
      expect((await request(app).get('/app/api/users').set('Cookie', viewer.cookie)).status).to.equal(200);
      await ctx.db('app_auth_role_permissions').where({ permission_key: 'users.view' }).delete();
      expect((await request(app).get('/app/api/users').set('Cookie', viewer.cookie)).status).to.equal(403);
    });
  });

  describe('PUT /app/api/users/:id', () => {
    it('changes name, primary role and verified state', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      await makeRole(ctx, ['pages.view'], 'redacteur');
      const target = await makeUser(ctx, { verified: false });
      const response = await request(app)
        .put(`/app/api/users/${target.id}`)
        .set('Cookie', admin.cookie)
        .send({ name: ' Zoé ', role: 'redacteur', email_verified: true });
      expect(response.status).to.equal(200);
      expect(response.body).to.include({ name: 'Zoé', role: 'redacteur', email_verified: true });
      expect(response.body.roles).to.deep.equal(['redacteur']);
    });

    it('refuses any other field with 400 and writes nothing', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx, { name: 'Before' });
      for (const body of [
        { name: 'After', email: 'x@example.com' },
        { name: 'After', id: 1 },
        { name: 'After', role_id: 1 },
        { name: 'After', password: 'whatever1' },
      ]) {
        const response = await request(app).put(`/app/api/users/${target.id}`).set('Cookie', admin.cookie).send(body);
        expect(response.status, JSON.stringify(body)).to.equal(400);
      }
      expect(await ctx.db('app_auth_users').where({ id: target.id }).first()).to.include({ name: 'Before', email: target.email });
    });

    it('refuses an unknown role with 400 and a missing user with 404', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx);
      expect((await request(app).put(`/app/api/users/${target.id}`).set('Cookie', admin.cookie).send({ role: 'nope' })).status).to.equal(400);
      expect((await request(app).put('/app/api/users/999999').set('Cookie', admin.cookie).send({ name: 'x' })).status).to.equal(404);
    });

    it('never demotes the last administrator, even itself', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const response = await request(app).put(`/app/api/users/${admin.id}`).set('Cookie', admin.cookie).send({ role: 'user' });
      expect(response.status).to.equal(409);
      expect(response.body.code).to.equal('last_admin');
      expect(response.body.error).to.equal('Le dernier administrateur ne peut pas perdre le rôle admin.');
      expect((await ctx.db('app_auth_users').where({ id: admin.id }).first())!.role_id).to.equal(
        (await ctx.db('app_auth_roles').where({ name: 'admin' }).first())!.id,
      );
    });

    it('lets one of two simultaneous demotions of the last two administrators pass, never both', async () => {
      const first = await caller(ctx, { role: 'admin' });
      const second = await caller(ctx, { role: 'admin' });
      const results = await Promise.all([
        request(app).put(`/app/api/users/${second.id}`).set('Cookie', first.cookie).send({ role: 'user' }),
        request(app).put(`/app/api/users/${first.id}`).set('Cookie', second.cookie).send({ role: 'user' }),
      ]);
      const statuses = results.map((result) => result.status).sort();
      expect(statuses).to.deep.equal([200, 409]);
      const admins = (await ctx
        .db('app_auth_users as u')
        .join('app_auth_roles as r', 'r.id', 'u.role_id')
        .where('r.name', 'admin')
        .count({ count: '*' })
        .first())!;
      expect(Number(admins.count)).to.equal(1);
    });

    it('allows demoting an administrator while another remains', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const other = await makeUser(ctx, { role: 'admin' });
      const response = await request(app).put(`/app/api/users/${other.id}`).set('Cookie', admin.cookie).send({ role: 'user' });
      expect(response.status).to.equal(200);
      expect(response.body.role).to.equal('user');
    });

    it('forbids a manager to grant a role holding a permission the manager lacks (no escalation)', async () => {
      const manager = await caller(ctx, { permissions: ['admin.access', 'users.view', 'users.manage'] });
      await makeRole(ctx, ['admin.access', 'roles.manage'], 'powerful');
      const target = await makeUser(ctx);
      for (const body of [{ role: 'admin' }, { role: 'powerful' }]) {
        const response = await request(app).put(`/app/api/users/${target.id}`).set('Cookie', manager.cookie).send(body);
        expect(response.status).to.equal(403);
        expect(response.body.code).to.equal('escalation');
      }
      const self = await request(app).put(`/app/api/users/${manager.id}`).set('Cookie', manager.cookie).send({ role: 'admin' });
      expect(self.status).to.equal(403);
      expect((await ctx.db('app_auth_users').where({ id: target.id }).first())!.role_id).to.equal(
        (await ctx.db('app_auth_roles').where({ name: 'user' }).first())!.id,
      );
    });

    it('forbids a manager to change an account holding permissions the manager lacks', async () => {
      const manager = await caller(ctx, { permissions: ['admin.access', 'users.view', 'users.manage'] });
      const admin = await makeUser(ctx, { role: 'admin' });
      await makeUser(ctx, { role: 'admin' });
      for (const [method, path, body] of [
        ['put', `/app/api/users/${admin.id}`, { name: 'Pwned' }],
        ['put', `/app/api/users/${admin.id}/email`, { email: 'attacker@example.com' }],
        ['put', `/app/api/users/${admin.id}/password`, { password: 'attacker password' }],
      ] as const) {
        const response = await request(app)[method](path).set('Cookie', manager.cookie).send(body);
        expect(response.status, path).to.equal(403);
      }
      expect(await ctx.db('app_auth_users').where({ id: admin.id }).first()).to.include({ email: admin.email, name: admin.name });
    });
  });

  describe('acting on oneself through /app/api/users/:id', () => {
    it('refuses one’s own address, password, verified state and reset link (403 use_profile, pointing to the profile), changing nothing', async () => {
      const admin = await caller(ctx, { role: 'admin', email: 'me@example.com' });
      await ctx.db('app_auth_users').where({ id: admin.id }).update({ email_verified: false });
      const passwordBefore = (await ctx.db('app_auth_accounts').where({ user_id: admin.id }).first())!.password_hash;
      for (const [method, path, body] of [
        ['put', `/app/api/users/${admin.id}/email`, { email: 'elsewhere@example.com' }],
        ['put', `/app/api/users/${admin.id}/password`, { password: 'chosen without the old one' }],
        ['post', `/app/api/users/${admin.id}/send-password-reset`, undefined],
        ['put', `/app/api/users/${admin.id}`, { email_verified: true }],
        ['put', `/app/api/users/${admin.id}`, { name: 'Moi', email_verified: true }],
      ] as const) {
        const response = await request(app)[method](path).set('Cookie', admin.cookie).send(body);
        expect(response.status, `${method} ${path}`).to.equal(403);
        expect(response.body.code).to.equal('use_profile');
        expect(response.body.error).to.include('/account');
      }
      expect(await ctx.db('app_auth_users').where({ id: admin.id }).first()).to.include({ email: 'me@example.com', email_verified: false, name: admin.name });
      expect((await ctx.db('app_auth_accounts').where({ user_id: admin.id }).first())!.password_hash).to.equal(passwordBefore);
      expect(await ctx.db('app_auth_verifications').where({ user_id: admin.id })).to.have.length(0);
      // The profile route does it, with the current password.
      const profile = await request(app)
        .post('/app/api/users/profile/email')
        .set('Cookie', admin.cookie)
        .send({ email: 'elsewhere@example.com', current_password: 'not the password' });
      expect(profile.body.code).to.equal('current_password_wrong');
    });

    it('lets a manager change its own name and roles within its own permissions', async () => {
      const manager = await caller(ctx, { permissions: ['admin.access', 'users.view', 'users.manage'] });
      const helperId = await makeRole(ctx, ['users.view'], 'helper');
      const renamed = await request(app).put(`/app/api/users/${manager.id}`).set('Cookie', manager.cookie).send({ name: 'Nouveau nom' });
      expect(renamed.status).to.equal(200);
      expect(renamed.body.name).to.equal('Nouveau nom');
      expect((await request(app).post(`/app/api/users/${manager.id}/roles`).set('Cookie', manager.cookie).send({ role_id: helperId })).status).to.equal(201);
      const powerId = await makeRole(ctx, ['roles.manage'], 'power');
      const escalation = await request(app).post(`/app/api/users/${manager.id}/roles`).set('Cookie', manager.cookie).send({ role_id: powerId });
      expect(escalation.status).to.equal(403);
      expect(escalation.body.code).to.equal('escalation');
    });
  });

  describe('PUT /app/api/users/:id/email', () => {
    it('starts the change to the address (normalised), pending until confirmed; refuses one already in use with 409', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx);
      await makeUser(ctx, { email: 'taken@example.com' });
      const moved = await request(app).put(`/app/api/users/${target.id}/email`).set('Cookie', admin.cookie).send({ email: ' New@Example.COM ' });
      expect(moved.status).to.equal(202);
      expect(moved.body).to.deep.equal({ email: target.email, pending_email: 'new@example.com' });
      expect((await ctx.db('app_auth_users').where({ id: target.id }).first())!.email).to.equal(target.email);
      const taken = await request(app).put(`/app/api/users/${target.id}/email`).set('Cookie', admin.cookie).send({ email: 'TAKEN@example.com' });
      expect(taken.status).to.equal(409);
    });
  });

  describe('roles of a user', () => {
    it('adds an extra role, lists it beside the primary one, and removes it', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const editorId = await makeRole(ctx, ['pages.view'], 'redacteur');
      const target = await makeUser(ctx);
      const added = await request(app).post(`/app/api/users/${target.id}/roles`).set('Cookie', admin.cookie).send({ role_id: editorId });
      expect(added.status).to.equal(201);
      expect(added.body.items.map((role: { name: string; primary: boolean }) => [role.name, role.primary])).to.deep.equal([
        ['user', true],
        ['redacteur', false],
      ]);
      const again = await request(app).post(`/app/api/users/${target.id}/roles`).set('Cookie', admin.cookie).send({ role_id: editorId });
      expect(again.status).to.equal(200);
      const listed = await request(app).get(`/app/api/users/${target.id}/roles`).set('Cookie', admin.cookie);
      expect(listed.body.total).to.equal(2);
      expect(listed.body.items[1]).to.include({ name: 'redacteur', user_count: 1 });
      expect(listed.body.items[1].permissions).to.deep.equal(['pages.view']);
      expect((await request(app).get(`/app/api/users/${target.id}`).set('Cookie', admin.cookie)).body.roles).to.deep.equal(['user', 'redacteur']);
      const removed = await request(app).delete(`/app/api/users/${target.id}/roles/${editorId}`).set('Cookie', admin.cookie);
      expect(removed.status).to.equal(204);
      expect(await ctx.db('app_auth_user_roles').where({ user_id: target.id })).to.have.length(0);
      expect((await request(app).delete(`/app/api/users/${target.id}/roles/${editorId}`).set('Cookie', admin.cookie)).status).to.equal(404);
    });

    it('removing the primary role falls back to the base role `user`, which itself cannot be removed', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const editorId = await makeRole(ctx, [], 'redacteur');
      const target = await makeUser(ctx, { role: 'redacteur' });
      expect((await request(app).delete(`/app/api/users/${target.id}/roles/${editorId}`).set('Cookie', admin.cookie)).status).to.equal(204);
      const after = await request(app).get(`/app/api/users/${target.id}`).set('Cookie', admin.cookie);
      expect(after.body.role).to.equal('user');
      const userRoleId = (await ctx.db('app_auth_roles').where({ name: 'user' }).first())!.id;
      const base = await request(app).delete(`/app/api/users/${target.id}/roles/${userRoleId}`).set('Cookie', admin.cookie);
      expect(base.status).to.equal(409);
    });

    it('never takes admin away from the last administrator, as primary or extra role', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const adminRoleId = (await ctx.db('app_auth_roles').where({ name: 'admin' }).first())!.id;
      const response = await request(app).delete(`/app/api/users/${admin.id}/roles/${adminRoleId}`).set('Cookie', admin.cookie);
      expect(response.status).to.equal(409);
      expect(response.body.code).to.equal('last_admin');

      const extraAdmin = await caller(ctx, { role: 'user' });
      await ctx.db('app_auth_user_roles').insert({ user_id: extraAdmin.id, role_id: adminRoleId });
      await ctx
        .db('app_auth_users')
        .where({ id: admin.id })
        .update({ role_id: (await ctx.db('app_auth_roles').where({ name: 'user' }).first())!.id });
      const extra = await request(app).delete(`/app/api/users/${extraAdmin.id}/roles/${adminRoleId}`).set('Cookie', extraAdmin.cookie);
      expect(extra.status).to.equal(409);
    });

    it('refuses to assign a role holding permissions the caller lacks, and an unknown role', async () => {
      const manager = await caller(ctx, { permissions: ['admin.access', 'users.view', 'users.manage'] });
      const adminRoleId = (await ctx.db('app_auth_roles').where({ name: 'admin' }).first())!.id;
      const target = await makeUser(ctx);
      expect((await request(app).post(`/app/api/users/${target.id}/roles`).set('Cookie', manager.cookie).send({ role_id: adminRoleId })).status).to.equal(403);
      expect((await request(app).post(`/app/api/users/${manager.id}/roles`).set('Cookie', manager.cookie).send({ role_id: adminRoleId })).status).to.equal(403);
      expect((await request(app).post(`/app/api/users/${target.id}/roles`).set('Cookie', manager.cookie).send({ role_id: 999999 })).status).to.equal(400);
      expect(await ctx.db('app_auth_user_roles')).to.have.length(0);
    });
  });
});
