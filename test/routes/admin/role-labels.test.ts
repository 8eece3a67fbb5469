// Role labels: what the screens show instead of the key. The migration labels the
// built-in roles, the API accepts and checks a label, the screens require one and show
// labels (and counts written out) wherever a role appears.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { caller, makeRole, makeUser } from '../../support/fixtures.js';
import { AdminClient, textOf } from '../../support/admin-client.js';

describe('role labels', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const roleNamed = (name: string) => ctx.db('app_auth_roles').where({ name }).first();

  it('labels the built-in roles «Administrateur» and «Utilisateur» (migration), and the API returns them', async () => {
    expect((await roleNamed('admin'))!.label).to.equal('Administrateur');
    expect((await roleNamed('user'))!.label).to.equal('Utilisateur');
    const admin = await caller(ctx, { role: 'admin' });
    const list = await request(app).get('/app/api/roles').set('Cookie', admin.cookie);
    // With the team roles the pages module ships (issue 26).
    expect(list.body.items.map((role: { label: string }) => role.label)).to.have.members([
      'Administrateur',
      'Utilisateur',
      'Contributeur',
      'Auteur',
      'Éditeur',
    ]);
  });

  describe('through the API', () => {
    it('creates a role with its label, refuses an empty or over-long one with 400 and writes nothing', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const post = (body: object) => request(app).post('/app/api/roles').set('Cookie', admin.cookie).send(body);
      const empty = await post({ name: 'redacteur', label: '  ', permissions: [] });
      expect(empty.status).to.equal(400);
      expect(empty.body.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['label']);
      expect((await post({ name: 'redacteur', label: 'x'.repeat(101), permissions: [] })).status).to.equal(400);
      expect(await roleNamed('redacteur')).to.equal(undefined);
      const created = await post({ name: 'redacteur', label: ' Rédaction ', permissions: [] });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ name: 'redacteur', label: 'Rédaction' });
      expect((await roleNamed('redacteur'))!.label).to.equal('Rédaction');
    });

    it('refuses a label another role has, whatever its case (409 role_label_taken), on creation and on change', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const taken = await request(app).post('/app/api/roles').set('Cookie', admin.cookie).send({ name: 'boss', label: 'administrateur', permissions: [] });
      expect(taken.status).to.equal(409);
      expect(taken.body).to.include({ code: 'role_label_taken', error: 'Un rôle porte déjà ce libellé.' });
      expect(await roleNamed('boss')).to.equal(undefined);
      const id = await makeRole(ctx, [], 'redacteur');
      const renamed = await request(app).put(`/app/api/roles/${id}`).set('Cookie', admin.cookie).send({ label: 'UTILISATEUR' });
      expect(renamed.status).to.equal(409);
      expect(renamed.body.code).to.equal('role_label_taken');
      expect((await ctx.db('app_auth_roles').where({ id }).first())!.label).to.equal('redacteur');
    });

    it('changes a label (also of the system role user, whose key stays), refuses an empty one', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const user = (await roleNamed('user'))!;
      const put = (id: number, body: object) => request(app).put(`/app/api/roles/${id}`).set('Cookie', admin.cookie).send(body);
      expect((await put(user.id, { label: '' })).status).to.equal(400);
      const changed = await put(user.id, { label: 'Membre' });
      expect(changed.status).to.equal(200);
      expect(changed.body).to.include({ name: 'user', label: 'Membre' });
      // `admin` is never edited, its label included.
      const adminRole = (await roleNamed('admin'))!;
      expect((await put(adminRole.id, { label: 'Chef' })).status).to.equal(409);
      expect((await roleNamed('admin'))!.label).to.equal('Administrateur');
    });
  });

  describe('on the screens', () => {
    it('lists labels with «Aucun compte», «1 compte» and «N comptes», numbers joined to their noun', async () => {
      const editor = await makeRole(ctx, ['pages.view'], 'redacteur');
      await ctx.db('app_auth_roles').where({ id: editor }).update({ label: 'Rédaction' });
      await makeRole(ctx, [], 'empty');
      await makeUser(ctx, { role: 'redacteur' });
      await makeUser(ctx, { role: 'redacteur' });
      const client = await AdminClient.as(app, { role: 'admin' });
      const page = await client.get('/admin/roles');
      const text = textOf(page.text);
      // The administrator of the client is the one account with the role.
      expect(text).to.include('Administrateur Système').and.include('1 compte Toutes');
      expect(text).to.include('Rédaction — 2 comptes 1 permission');
      expect(text).to.include('empty — Aucun compte Aucune');
      expect(page.text).to.include('2\u00a0comptes').and.include('1\u00a0compte');
      expect(text).not.to.match(/>\s*admin\s*</);
    });

    it('requires a label to create a role: re-rendered with the message and the input, then created with it', async () => {
      const client = await AdminClient.as(app, { role: 'admin' });
      const missing = await client.post('/admin/roles', { label: '', name: 'redacteur', description: 'Gardée' }, '/admin/roles/new');
      expect(missing.status).to.equal(400);
      expect(missing.text).to.include('id="role-label-error"').and.include('Gardée').and.include('value="redacteur"');
      expect(await roleNamed('redacteur')).to.equal(undefined);
      const ok = await client.post('/admin/roles', { label: 'Rédaction', name: 'redacteur' }, '/admin/roles/new');
      expect(ok.status).to.equal(303);
      expect((await roleNamed('redacteur'))!.label).to.equal('Rédaction');
      const shown = await client.follow(ok);
      expect(shown.text).to.include('<title>Rôle Rédaction — Site de test</title>');
      const duplicate = await client.post('/admin/roles', { label: 'rédaction', name: 'other' }, '/admin/roles/new');
      expect(duplicate.status).to.equal(409);
      expect(textOf(duplicate.text)).to.include('Un rôle porte déjà ce libellé.');
    });

    it('changes the label of the system role user on its screen; its key is shown, not editable', async () => {
      const client = await AdminClient.as(app, { role: 'admin' });
      const user = (await roleNamed('user'))!;
      const form = await client.get(`/admin/roles/${user.id}`);
      expect(form.text).to.include('id="role-label"').and.not.include('id="role-name"');
      const ok = await client.post(`/admin/roles/${user.id}`, { label: 'Membre', name: 'ignored' }, `/admin/roles/${user.id}`);
      expect(ok.status).to.equal(303);
      expect(await roleNamed('user')).to.include({ label: 'Membre' });
      const empty = await client.post(`/admin/roles/${user.id}`, { label: '' }, `/admin/roles/${user.id}`);
      expect(empty.status).to.equal(400);
      expect(empty.text).to.include('id="role-label-error"');
    });

    it('shows role labels, not keys, on a user’s detail page', async () => {
      const editor = await makeRole(ctx, [], 'redacteur');
      await ctx.db('app_auth_roles').where({ id: editor }).update({ label: 'Rédaction' });
      const target = await makeUser(ctx, { name: 'Bob' });
      await ctx.db('app_auth_user_roles').insert({ user_id: target.id, role_id: editor });
      const client = await AdminClient.as(app, { role: 'admin' });
      const page = await client.get(`/admin/users/${target.id}`);
      const text = textOf(page.text);
      expect(text).to.include('Rôles Utilisateur, Rédaction');
      expect(text).not.to.include('Rôle principal');
      expect(page.text).not.to.match(/>\s*(user|redacteur)\s*</);
    });
  });
});
