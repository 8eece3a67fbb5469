import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { caller, makeRole, makeUser } from '../../support/fixtures.js';

describe('/app/api/roles and /app/api/permissions', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  it('GET /permissions gives the catalogue grouped, core sections first, modules after', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    const response = await request(app).get('/app/api/permissions').set('Cookie', admin.cookie);
    expect(response.status).to.equal(200);
    const sections = response.body.map((section: { section: string }) => section.section);
    expect(sections.slice(0, 3)).to.deep.equal(['administration', 'users', 'roles']);
    expect(response.body[1]).to.deep.equal({
      section: 'users',
      label: 'Utilisateurs',
      permissions: [
        { key: 'users.view', label: 'Consulter les utilisateurs' },
        { key: 'users.manage', label: 'Gérer les utilisateurs' },
      ],
    });
    const positions = await ctx.db('app_auth_permission_sections').whereIn('key', sections).orderBy(['position', 'key']).pluck('key');
    expect(sections).to.deep.equal(positions);
  });

  it('creates, shows, lists, changes and deletes a role, with the role JSON of DESIGN §3', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    const created = await request(app)
      .post('/app/api/roles')
      .set('Cookie', admin.cookie)
      .send({ name: 'redacteur', description: 'Rédaction', permissions: ['users.view', 'admin.access'] });
    expect(created.status).to.equal(201);
    expect(created.body).to.deep.include({
      name: 'redacteur',
      description: 'Rédaction',
      permissions: ['admin.access', 'users.view'],
      system: false,
      require_2fa: false,
      user_count: 0,
    });
    expect(created.body).to.have.all.keys('id', 'name', 'label', 'description', 'permissions', 'system', 'require_2fa', 'sign_in_methods', 'user_count');
    // Without a label, the role reads as its name.
    expect(created.body.label).to.equal('redacteur');
    await makeUser(ctx, { role: 'redacteur' });
    const shown = await request(app).get(`/app/api/roles/${created.body.id}`).set('Cookie', admin.cookie);
    expect(shown.body.user_count).to.equal(1);
    const list = await request(app).get('/app/api/roles').set('Cookie', admin.cookie);
    // With the team roles the pages module ships (issue 26).
    expect(list.body).to.include({ total: 6, limit: 50, offset: 0 });
    expect(list.body.items.map((role: { name: string }) => role.name)).to.deep.equal(['admin', 'user', 'author', 'contributor', 'editor', 'redacteur']);
    const adminRole = list.body.items[0];
    expect(adminRole.permissions).to.deep.equal(await ctx.db('app_auth_permissions').orderBy('key').pluck('key'));
    const changed = await request(app)
      .put(`/app/api/roles/${created.body.id}`)
      .set('Cookie', admin.cookie)
      .send({ permissions: ['roles.view'] });
    expect(changed.body.permissions).to.deep.equal(['roles.view']);
    expect((await request(app).delete(`/app/api/roles/${created.body.id}`).set('Cookie', admin.cookie)).status).to.equal(204);
    expect((await request(app).get(`/app/api/roles/${created.body.id}`).set('Cookie', admin.cookie)).status).to.equal(404);
  });

  it('gives the users of a deleted role the base role `user`', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    const roleId = await makeRole(ctx, ['pages.view'], 'redacteur');
    const holder = await makeUser(ctx, { role: 'redacteur' });
    expect((await request(app).delete(`/app/api/roles/${roleId}`).set('Cookie', admin.cookie)).status).to.equal(204);
    expect((await request(app).get(`/app/api/users/${holder.id}`).set('Cookie', admin.cookie)).body.role).to.equal('user');
  });

  it('refuses a duplicate name (409) and permissions outside the catalogue (400), writing nothing', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    await makeRole(ctx, [], 'redacteur');
    expect((await request(app).post('/app/api/roles').set('Cookie', admin.cookie).send({ name: 'redacteur', permissions: [] })).status).to.equal(409);
    const unknown = await request(app)
      .post('/app/api/roles')
      .set('Cookie', admin.cookie)
      .send({ name: 'other', permissions: ['users.view', 'everything.root'] });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error).to.include('everything.root');
    expect(await ctx.db('app_auth_roles').where({ name: 'other' })).to.have.length(0);
  });

  it('never deletes a system role, never edits admin, never renames user', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    const adminId = (await ctx.db('app_auth_roles').where({ name: 'admin' }).first())!.id;
    const userId = (await ctx.db('app_auth_roles').where({ name: 'user' }).first())!.id;
    expect((await request(app).delete(`/app/api/roles/${adminId}`).set('Cookie', admin.cookie)).status).to.equal(409);
    expect((await request(app).delete(`/app/api/roles/${userId}`).set('Cookie', admin.cookie)).status).to.equal(409);
    expect((await request(app).put(`/app/api/roles/${adminId}`).set('Cookie', admin.cookie).send({ description: 'x' })).status).to.equal(409);
    expect((await request(app).put(`/app/api/roles/${userId}`).set('Cookie', admin.cookie).send({ name: 'member' })).status).to.equal(409);
    const described = await request(app).put(`/app/api/roles/${userId}`).set('Cookie', admin.cookie).send({ description: 'Membre' });
    expect(described.status).to.equal(200);
  });

  it('forbids a role manager to put into a role, or take out of it, a permission it lacks', async () => {
    const manager = await caller(ctx, { permissions: ['admin.access', 'roles.view', 'roles.manage'] });
    const ownRoleId = (await ctx.db('app_auth_users').where({ id: manager.id }).first())!.role_id;
    const grow = await request(app)
      .put(`/app/api/roles/${ownRoleId}`)
      .set('Cookie', manager.cookie)
      .send({ permissions: ['admin.access', 'roles.view', 'roles.manage', 'users.manage'] });
    expect(grow.status).to.equal(403);
    expect(grow.body.code).to.equal('escalation');
    const create = await request(app)
      .post('/app/api/roles')
      .set('Cookie', manager.cookie)
      .send({ name: 'sneaky', permissions: ['users.manage'] });
    expect(create.status).to.equal(403);
    const otherId = await makeRole(ctx, ['users.manage'], 'managers');
    expect((await request(app).put(`/app/api/roles/${otherId}`).set('Cookie', manager.cookie).send({ permissions: [] })).status).to.equal(403);
    expect((await request(app).delete(`/app/api/roles/${otherId}`).set('Cookie', manager.cookie)).status).to.equal(403);
    expect(await ctx.db('app_auth_role_permissions').where({ role_id: ownRoleId }).pluck('permission_key')).not.to.include('users.manage');
  });

  it('lets a role manager rename a role only when it holds every permission of that role (a name is what a grant names)', async () => {
    const manager = await caller(ctx, { permissions: ['admin.access', 'users.view', 'users.manage', 'roles.view', 'roles.manage'] });
    const powerId = await makeRole(ctx, ['users.view', 'pages.manage'], 'power');
    const plainId = await makeRole(ctx, ['users.view'], 'plain');
    const refused = await request(app).put(`/app/api/roles/${powerId}`).set('Cookie', manager.cookie).send({ name: 'plain-2' });
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('escalation');
    expect(refused.body.error).to.include('pages.manage').and.include('renommé');
    // Its name given unchanged with another field is no rename, but still a change of a
    // role above the manager: refused too, with the words of a change.
    const same = await request(app).put(`/app/api/roles/${powerId}`).set('Cookie', manager.cookie).send({ name: 'power', description: 'Éditeurs' });
    expect(same.status).to.equal(403);
    expect(same.body.error).to.include('pages.manage').and.include('modifié');
    expect(await ctx.db('app_auth_roles').where({ id: powerId }).first()).to.include({ name: 'power', description: '' });
    const renamed = await request(app).put(`/app/api/roles/${plainId}`).set('Cookie', manager.cookie).send({ name: 'plain-2' });
    expect(renamed.status).to.equal(200);
    expect(renamed.body.name).to.equal('plain-2');
    const admin = await caller(ctx, { role: 'admin' });
    expect((await request(app).put(`/app/api/roles/${powerId}`).set('Cookie', admin.cookie).send({ name: 'power-2' })).status).to.equal(200);
  });

  it('asks for confirmation (409) before requiring two-step verification of a role the caller holds without it, then says where to enrol', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    const adminRoleId = (await ctx.db('app_auth_roles').where({ name: 'admin' }).first())!.id;
    const mark = Number((await ctx.db('app_audit_events').max({ id: 'id' }).first())?.id ?? 0);
    const asked = await request(app).put(`/app/api/roles/${adminRoleId}`).set('Cookie', admin.cookie).send({ require_2fa: true });
    expect(asked.status).to.equal(409);
    expect(asked.body.code).to.equal('second_factor_confirmation_required');
    expect(asked.body.error).to.include('n’a pas activé la vérification en deux étapes').and.include('confirmation');
    expect(asked.body.details).to.deep.equal([{ field: 'confirm', message: asked.body.error }]);
    expect((await ctx.db('app_auth_roles').where({ id: adminRoleId }).first())!.require_2fa).to.equal(false);
    expect(await ctx.db('app_audit_events').where('id', '>', mark).pluck('action')).to.deep.equal([]);
    const confirmed = await request(app).put(`/app/api/roles/${adminRoleId}`).set('Cookie', admin.cookie).send({ require_2fa: true, confirm: true });
    expect(confirmed.status).to.equal(200);
    expect(confirmed.body).to.include({ name: 'admin', require_2fa: true });
    expect(confirmed.body.second_factor_enrolment).to.deep.equal({ page: '/account/2fa', api: '/app/api/users/profile/2fa/setup' });
    expect((await ctx.db('app_auth_roles').where({ id: adminRoleId }).first())!.require_2fa).to.equal(true);
    const event = (await ctx.db('app_audit_events').where('id', '>', mark).first())!;
    expect(event).to.include({ action: 'role.updated', actor_id: admin.id });
    expect(event.details).to.deep.equal({ changes: { require_2fa: { from: false, to: true } }, locks_out_caller: true });
    // Where it was sent is what it can reach now.
    expect((await request(app).get('/app/api/roles').set('Cookie', admin.cookie)).body.code).to.equal('second_factor_enrolment_required');
    expect((await request(app).get('/app/api/users/profile/2fa').set('Cookie', admin.cookie)).status).to.equal(200);
  });

  it('asks nothing when the caller does not hold the role, and gives the plain role JSON', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    const roleId = await makeRole(ctx, ['admin.access', 'pages.view'], 'redacteur');
    const response = await request(app).put(`/app/api/roles/${roleId}`).set('Cookie', admin.cookie).send({ require_2fa: true });
    expect(response.status).to.equal(200);
    expect(response.body).to.have.all.keys('id', 'name', 'label', 'description', 'permissions', 'system', 'require_2fa', 'sign_in_methods', 'user_count');
    expect((await ctx.db('app_auth_roles').where({ id: roleId }).first())!.require_2fa).to.equal(true);
  });
});
