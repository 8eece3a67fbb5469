// A role form that cannot go wrong (issue 26): the key derived from the label when left
// empty, permissions shown by their labels, administration permissions without
// admin.access asked about once (the form comes back with the box ticked, then saves
// as chosen); the JSON API saves any set and says so in `warnings`. The invitation
// form explains each role in one line.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller, makeRole } from '../support/fixtures.js';
import { AdminClient, textOf } from '../support/admin-client.js';

const ADMIN_ACCESS_BOX = /<input type="checkbox" name="permissions" value="admin\.access" checked>/;

describe('teams: the role form and the roles API', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const roleNamed = (name: string) => ctx.db('app_auth_roles').where({ name }).first();
  const permissionsOf = async (id: number) => ctx.db('app_auth_role_permissions').where({ role_id: id }).orderBy('permission_key').pluck('permission_key');
  const roleCount = async () => Number((await ctx.db('app_auth_roles').count({ n: '*' }).first())!.n);

  it('derives the key from the label when left empty, shows it as a detail, and lists permissions by their labels', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    const form = await client.get('/admin/roles/new');
    expect(form.text).to.include('<details class="role-key"').and.include('/assets/js/role-form.js');
    expect(form.text).to.include('Publier les pages (publier, programmer, rendre privée)').and.include('Écrire les brouillons de ses propres pages');
    // Keys are values of the boxes, never their text.
    expect(textOf(form.text)).to.not.include('pages.manage');
    const created = await client.post(
      '/admin/roles',
      { label: 'Rédacteur en chef', name: '', permissions: ['admin.access', 'pages.view'] },
      '/admin/roles/new',
    );
    expect(created.status).to.equal(303);
    const role = (await roleNamed('redacteur-en-chef'))!;
    expect(role.label).to.equal('Rédacteur en chef');
    expect(created.headers.location).to.equal(`/admin/roles/${role.id}`);
    // A derived key already taken gets the next free suffix.
    const again = await client.post('/admin/roles', { label: 'Rédacteur  en chef !', permissions: ['admin.access'] }, '/admin/roles/new');
    expect(again.status).to.equal(303);
    expect(await roleNamed('redacteur-en-chef-2')).to.not.equal(undefined);
  });

  it('brings the form back with «Accéder à l’administration» ticked and says why, then saves on the second submission as chosen', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    const before = await roleCount();
    const first = await client.post('/admin/roles', { label: 'Relecture', permissions: ['pages.view', 'pages.review'] }, '/admin/roles/new');
    expect(first.status).to.equal(400);
    expect(textOf(first.text)).to.include('Rien n’est enregistré').and.include('Accéder à l’administration');
    expect(first.text).to.match(ADMIN_ACCESS_BOX);
    expect(first.text).to.include('<input type="hidden" name="admin_access_warned" value="1">');
    expect(first.text).to.include('value="pages.review" checked');
    expect(await roleCount()).to.equal(before);

    // Submitted again as it came back (the box left ticked): saved with admin.access.
    const kept = await client.post(
      '/admin/roles',
      { label: 'Relecture', permissions: ['admin.access', 'pages.view', 'pages.review'], admin_access_warned: '1' },
      '/admin/roles/new',
    );
    expect(kept.status).to.equal(303);
    expect(await permissionsOf((await roleNamed('relecture'))!.id)).to.deep.equal(['admin.access', 'pages.review', 'pages.view']);

    // The person unticks it on purpose: saved without it, as chosen.
    const first2 = await client.post('/admin/roles', { label: 'Sans accès', permissions: ['pages.view'] }, '/admin/roles/new');
    expect(first2.status).to.equal(400);
    const chosen = await client.post('/admin/roles', { label: 'Sans accès', permissions: ['pages.view'], admin_access_warned: '1' }, '/admin/roles/new');
    expect(chosen.status).to.equal(303);
    expect(await permissionsOf((await roleNamed('sans-acces'))!.id)).to.deep.equal(['pages.view']);
  });

  it('asks the same on an edit, and not when admin.access is there or no permission is chosen', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    const id = await makeRole(ctx, ['admin.access', 'pages.view'], 'lecteurs');
    const edit = await client.post(`/admin/roles/${id}`, { label: 'Lecteurs', name: 'lecteurs', permissions: ['pages.view'] }, `/admin/roles/${id}`);
    expect(edit.status).to.equal(400);
    expect(edit.text).to.match(ADMIN_ACCESS_BOX);
    expect(await permissionsOf(id)).to.deep.equal(['admin.access', 'pages.view']);
    const none = await client.post(`/admin/roles/${id}`, { label: 'Lecteurs', name: '', permissions: [] }, `/admin/roles/${id}`);
    expect(none.status).to.equal(303);
    expect(await permissionsOf(id)).to.deep.equal([]);
    // An emptied key is derived from the label again.
    expect((await ctx.db('app_auth_roles').where({ id }).first())!.name).to.equal('lecteurs');
  });

  it('JSON: saves any set of permissions and adds warnings naming admin.access when it is missing', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    const created = await request(app)
      .post('/app/api/roles')
      .set('Cookie', admin.cookie)
      .send({ name: 'menus', permissions: ['menus.manage'] });
    expect(created.status).to.equal(201);
    expect(created.body.permissions).to.deep.equal(['menus.manage']);
    expect(created.body.warnings).to.have.length(1);
    expect(created.body.warnings[0].code).to.equal('admin_access_missing');
    expect(created.body.warnings[0].message).to.include('admin.access');
    expect(await permissionsOf(created.body.id)).to.deep.equal(['menus.manage']);
    const fixed = await request(app)
      .put(`/app/api/roles/${created.body.id}`)
      .set('Cookie', admin.cookie)
      .send({ permissions: ['admin.access', 'menus.manage'] });
    expect(fixed.status).to.equal(200);
    expect(fixed.body).to.not.have.property('warnings');
    const broken = await request(app)
      .put(`/app/api/roles/${created.body.id}`)
      .set('Cookie', admin.cookie)
      .send({ permissions: ['menus.manage'] });
    expect(broken.body.warnings.map((warning: { code: string }) => warning.code)).to.deep.equal(['admin_access_missing']);
    const empty = await request(app).post('/app/api/roles').set('Cookie', admin.cookie).send({ name: 'vide', permissions: [] });
    expect(empty.body).to.not.have.property('warnings');
  });

  it('the invitation form explains each role in one line, the team roles included', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    const page = textOf((await client.get('/admin/users/new')).text);
    expect(page).to.include('Contributeur — Écrit les brouillons des pages qu’il a créées et les soumet à la relecture ; ne publie pas');
    expect(page).to.include('Auteur — Écrit et publie les pages qu’il a créées');
    expect(page).to.include('Éditeur — Toutes les pages');
  });
});
