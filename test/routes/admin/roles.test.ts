// /admin/roles: list with counts, create and edit with grouped permission checkboxes,
// delete after confirmation, system roles read-only or unrenamable.
import { expect } from 'chai';
import type { AppContext } from '../../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { makeRole, makeUser } from '../../support/fixtures.js';
import { AdminClient, textOf } from '../../support/admin-client.js';

describe('/admin/roles screens', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const admin = () => AdminClient.as(app, { role: 'admin' });
  const viewer = () => AdminClient.as(app, { permissions: ['admin.access', 'roles.view'] });
  const roleNamed = (name: string) => ctx.db('app_auth_roles').where({ name }).first();
  const permissionsOf = async (id: number) =>
    (await ctx.db('app_auth_role_permissions').where({ role_id: id }).orderBy('permission_key')).map((row) => row.permission_key);

  it('lists roles with their user counts; refuses without roles.view', async () => {
    const roleId = await makeRole(ctx, ['pages.view'], 'redacteur');
    const user = await makeUser(ctx);
    await ctx.db('app_auth_user_roles').insert({ user_id: user.id, role_id: roleId });
    const page = await (await viewer()).get('/admin/roles');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<title>Rôles — Site de test</title>');
    expect(textOf(page.text)).to.include('redacteur — 1 compte 1 permission');
    expect(page.text).not.to.include('Nouveau rôle');
    expect((await (await AdminClient.as(app, { permissions: ['admin.access'] })).get('/admin/roles')).status).to.equal(403);
  });

  it('groups the catalogue as checkboxes, core sections first, and shows admin read-only', async () => {
    const client = await admin();
    const form = await client.get('/admin/roles/new');
    const legends = [...form.text.matchAll(/<legend>([^<]+)<\/legend>/g)].map((match) => match[1]);
    // The catalogue's sections, then the role's own setting (two-step verification).
    expect(legends.slice(0, 3)).to.deep.equal(['Administration', 'Utilisateurs', 'Rôles']);
    // The permissions' sections, then the role's sign-in policy (issue 27).
    expect(legends.slice(-4)).to.deep.equal(['Pages', 'Site', 'Sécurité', 'Moyens de connexion']);
    expect(form.text).to.include('name="permissions" value="users.manage"');
    const adminRole = (await roleNamed('admin'))!;
    const adminPage = await client.get(`/admin/roles/${adminRole.id}`);
    // Its permissions are fixed; whether its holders must use two-step verification is not.
    const boxes = [...adminPage.text.matchAll(/<input type="checkbox" name="permissions"[^>]*>/g)].map((match) => match[0]);
    expect(boxes).to.have.length.above(3);
    for (const box of boxes) expect(box).to.include('disabled');
    expect(adminPage.text).to.match(/<input type="checkbox" name="require_2fa" value="1">/);
    expect(adminPage.text).to.include('Enregistrer</button>');
  });

  it('creates a role: refused without roles.manage, re-rendered with the input on a bad name, created with its permissions', async () => {
    expect((await (await viewer()).post('/admin/roles', { name: 'redacteur', permissions: ['pages.view'] }, '/admin/roles')).status).to.equal(403);
    const client = await admin();
    const bad = await client.post(
      '/admin/roles',
      { label: 'Mauvaise', name: 'bad/name', description: 'Kept text', permissions: ['admin.access', 'pages.view', 'pages.manage'] },
      '/admin/roles/new',
    );
    expect(bad.status).to.equal(400);
    expect(bad.text).to.include('id="role-name-error"').and.include('Kept text');
    expect(bad.text).to.include('value="pages.manage" checked');
    const ok = await client.post(
      '/admin/roles',
      { label: 'Rédaction', name: 'redacteur', description: 'Rédaction', permissions: ['pages.view', 'pages.manage', 'admin.access'] },
      '/admin/roles/new',
    );
    expect(ok.status).to.equal(303);
    const role = (await roleNamed('redacteur'))!;
    expect(ok.headers.location).to.equal(`/admin/roles/${role.id}`);
    expect(await permissionsOf(role.id)).to.deep.equal(['admin.access', 'pages.manage', 'pages.view']);
    expect(textOf((await client.follow(ok)).text)).to.include('Le rôle est créé.');
  });

  it('refuses a duplicate name and a permission the caller does not hold', async () => {
    await makeRole(ctx, [], 'taken');
    const client = await admin();
    const duplicate = await client.post('/admin/roles', { label: 'Autre', name: 'taken' }, '/admin/roles/new');
    expect(duplicate.status).to.equal(409);
    expect(textOf(duplicate.text)).to.include('Un rôle porte déjà ce nom.');
    const manager = await AdminClient.as(app, { permissions: ['admin.access', 'roles.view', 'roles.manage'] });
    const escalation = await manager.post(
      '/admin/roles',
      { label: 'Sournois', name: 'sneaky', permissions: ['admin.access', 'users.manage'] },
      '/admin/roles/new',
    );
    expect(escalation.status).to.equal(403);
    expect(textOf(escalation.text)).to.include('users.manage');
    expect(await roleNamed('sneaky')).to.equal(undefined);
  });

  it('edits a role (unchecking everything removes every permission), refused without roles.manage', async () => {
    const id = await makeRole(ctx, ['pages.view'], 'redacteur');
    expect((await (await viewer()).post(`/admin/roles/${id}`, { name: 'x' }, '/admin/roles')).status).to.equal(403);
    const client = await admin();
    const bad = await client.post(`/admin/roles/${id}`, { name: 'bad/name', permissions: ['users.view'] }, `/admin/roles/${id}`);
    expect(bad.status).to.equal(400);
    expect(bad.text).to.include('value="bad/name"').and.include('value="users.view" checked');
    const ok = await client.post(`/admin/roles/${id}`, { name: 'writer', description: '' }, `/admin/roles/${id}`);
    expect(ok.status).to.equal(303);
    expect((await ctx.db('app_auth_roles').where({ id }).first())!.name).to.equal('writer');
    expect(await permissionsOf(id)).to.deep.equal([]);
  });

  it('keeps the name of the system role user while its permissions change', async () => {
    const client = await admin();
    const user = (await roleNamed('user'))!;
    // Without admin.access: saved as chosen once the form has said so (test/teams/role-form.test.ts).
    const ok = await client.post(
      `/admin/roles/${user.id}`,
      { name: 'renamed', permissions: ['pages.view'], admin_access_warned: '1' },
      `/admin/roles/${user.id}`,
    );
    expect(ok.status).to.equal(303);
    expect((await ctx.db('app_auth_roles').where({ id: user.id }).first())!.name).to.equal('user');
    expect(await permissionsOf(user.id)).to.deep.equal(['pages.view']);
  });

  it('deletes a role after the confirmation page; refuses system roles and callers without roles.manage', async () => {
    const id = await makeRole(ctx, ['pages.view'], 'temporary');
    expect((await (await viewer()).post(`/admin/roles/${id}/delete`, {}, '/admin/roles')).status).to.equal(403);
    const client = await admin();
    const confirm = await client.get(`/admin/roles/${id}/delete`);
    expect(confirm.status).to.equal(200);
    expect(confirm.text).to.include('Supprimer définitivement');
    const ok = await client.post(`/admin/roles/${id}/delete`, {}, `/admin/roles/${id}/delete`);
    expect(ok.status).to.equal(303);
    expect(await ctx.db('app_auth_roles').where({ id })).to.have.length(0);
    expect(textOf((await client.follow(ok)).text)).to.include('Le rôle est supprimé.');
    const admin_ = (await roleNamed('admin'))!;
    expect((await client.get(`/admin/roles/${admin_.id}/delete`)).status).to.equal(409);
    const refused = await client.post(`/admin/roles/${admin_.id}/delete`, {}, '/admin/roles');
    expect(refused.status).to.equal(409);
    expect(await roleNamed('admin')).to.not.equal(undefined);
  });

  it('warns, then asks for confirmation, before requiring two-step verification of a role the manager holds without it, then sends it to enrol', async () => {
    const client = await admin();
    const adminRole = (await roleNamed('admin'))!;
    const form = await client.get(`/admin/roles/${adminRole.id}`);
    expect(textOf(form.text)).to.include('Ce compte a ce rôle sans avoir activé la vérification en deux étapes');
    const mark = Number((await ctx.db('app_audit_events').max({ id: 'id' }).first())?.id ?? 0);
    const asked = await client.post(`/admin/roles/${adminRole.id}`, { require_2fa: '1' }, `/admin/roles/${adminRole.id}`);
    expect(asked.status).to.equal(409);
    expect(asked.text).to.include('name="confirm" value="1"');
    expect(textOf(asked.text)).to.include('Une confirmation est nécessaire pour enregistrer.');
    expect((await roleNamed('admin'))!.require_2fa).to.equal(false);
    expect(await ctx.db('app_audit_events').where('id', '>', mark).pluck('action')).to.deep.equal([]);
    const confirmed = await client.post(`/admin/roles/${adminRole.id}`, { require_2fa: '1', confirm: '1' }, `/admin/roles/${adminRole.id}`);
    expect(confirmed.status).to.equal(303);
    expect(confirmed.headers.location).to.equal('/account/2fa');
    expect((await roleNamed('admin'))!.require_2fa).to.equal(true);
    expect(await ctx.db('app_audit_events').where('id', '>', mark).pluck('action')).to.deep.equal(['role.updated']);
    const enrolment = await client.follow(confirmed);
    expect(enrolment.status).to.equal(200);
    expect(textOf(enrolment.text)).to.include('Le rôle est enregistré. Il exige la vérification en deux étapes');
    // Any other screen now sends it back there.
    const other = await client.get('/admin/roles');
    expect(other.status).to.equal(303);
    expect(other.headers.location).to.equal('/account/2fa');
  });
});
