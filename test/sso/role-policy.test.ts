// The sign-in policy of a role (issue 27, item 4) in the roles JSON API and the role
// form: `sign_in_methods` null (every way, the default) or a non-empty list of
// `password`, `passkey`, `sso:<provider id>`; `admin` always stays open.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { insertSsoProvider } from '../../models/auth/sso-providers.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller, makeRole } from '../support/fixtures.js';

describe('sign-in policy of a role: the roles API and the role form', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const provider = () => insertSsoProvider(ctx, { label: 'Annuaire', issuer: 'https://idp.example.com', client_id: 'site' });
  const stored = async (id: number) => (await ctx.db('app_auth_roles').where({ id }).first('sign_in_methods'))!.sign_in_methods;

  it('GET, POST and PUT /app/api/roles carry `sign_in_methods`: null by default, a checked list otherwise, audited', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    const sso = await provider();
    const send = (method: 'get' | 'post' | 'put', path: string, body?: object) =>
      request(app)[method](`/app/api/roles${path}`).set('Cookie', admin.cookie).set('Accept', 'application/json').send(body);

    const roleId = await makeRole(ctx, ['admin.access'], 'staff');
    const shown = await send('get', `/${roleId}`);
    expect(shown.status).to.equal(200);
    expect(shown.body).to.include({ sign_in_methods: null });
    expect(shown.body).to.have.all.keys('id', 'name', 'label', 'description', 'permissions', 'system', 'require_2fa', 'sign_in_methods', 'user_count');

    const put = await send('put', `/${roleId}`, { sign_in_methods: [`sso:${sso.id}`, 'passkey', 'passkey'] });
    expect(put.status).to.equal(400);
    const saved = await send('put', `/${roleId}`, { sign_in_methods: [`sso:${sso.id}`, 'passkey'] });
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body.sign_in_methods).to.deep.equal(['passkey', `sso:${sso.id}`]);
    expect(await stored(roleId)).to.deep.equal(['passkey', `sso:${sso.id}`]);
    const event = await ctx.db('app_audit_events').where({ action: 'role.updated' }).orderBy('id', 'desc').first();
    expect(event!.details).to.deep.equal({ changes: { sign_in_methods: { from: null, to: ['passkey', `sso:${sso.id}`] } } });

    for (const [body, code] of [
      [{ sign_in_methods: [] }, 'validation_error'],
      [{ sign_in_methods: ['totp'] }, 'validation_error'],
      [{ sign_in_methods: ['sso:999999'] }, 'invalid_sign_in_methods'],
    ] as const) {
      const refused = await send('put', `/${roleId}`, body);
      expect(refused.status, JSON.stringify(body)).to.equal(400);
      expect(refused.body.code).to.equal(code);
    }
    expect(await stored(roleId)).to.deep.equal(['passkey', `sso:${sso.id}`]);

    const reopened = await send('put', `/${roleId}`, { sign_in_methods: null });
    expect(reopened.body.sign_in_methods).to.equal(null);
    expect(await stored(roleId)).to.equal(null);

    const created = await send('post', '', { name: 'externes', permissions: [], sign_in_methods: [`sso:${sso.id}`] });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.sign_in_methods).to.deep.equal([`sso:${sso.id}`]);

    const adminRole = (await ctx.db('app_auth_roles').where({ name: 'admin' }).first('id'))!;
    const locked = await send('put', `/${adminRole.id}`, { sign_in_methods: ['password'] });
    expect(locked.status).to.equal(409);
    expect(await stored(adminRole.id)).to.equal(null);
  });

  it('edits it in the role form: «Tous», or «Seulement» the ticked ways; none ticked is refused with the form kept', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    const sso = await provider();
    const roleId = await makeRole(ctx, ['admin.access'], 'staff');
    const form = await client.get(`/admin/roles/${roleId}`);
    expect(form.status).to.equal(200);
    expect(textOf(form.text)).to.include('Moyens de connexion').and.include('Annuaire').and.include('Clé d’accès');
    expect(form.text).to.include('<input type="radio" name="sign_in_policy" value="any" checked>');
    expect(form.text).to.include(`value="sso:${sso.id}"`);

    const fields = { label: 'staff', name: 'staff', permissions: ['admin.access'] };
    const empty = await client.post(`/admin/roles/${roleId}`, { ...fields, sign_in_policy: 'listed' }, `/admin/roles/${roleId}`);
    expect(empty.status).to.equal(400);
    expect(textOf(empty.text)).to.include('Au moins un moyen de connexion doit être permis');
    expect(empty.text).to.include('<input type="radio" name="sign_in_policy" value="listed" checked>');
    expect(await stored(roleId)).to.equal(null);

    const saved = await client.post(
      `/admin/roles/${roleId}`,
      { ...fields, sign_in_policy: 'listed', sign_in_methods: [`sso:${sso.id}`] },
      `/admin/roles/${roleId}`,
    );
    expect(saved.status, saved.text).to.equal(303);
    expect(await stored(roleId)).to.deep.equal([`sso:${sso.id}`]);
    const again = await client.get(`/admin/roles/${roleId}`);
    expect(again.text).to.include('<input type="radio" name="sign_in_policy" value="listed" checked>');
    expect(again.text).to.include(`value="sso:${sso.id}" checked`);

    const open = await client.post(`/admin/roles/${roleId}`, { ...fields, sign_in_policy: 'any', sign_in_methods: ['password'] }, `/admin/roles/${roleId}`);
    expect(open.status).to.equal(303);
    expect(await stored(roleId)).to.equal(null);

    // A new role from the form, restricted at once.
    const created = await client.post(
      '/admin/roles',
      { label: 'Prestataires', permissions: [], sign_in_policy: 'listed', sign_in_methods: ['passkey', 'password'] },
      '/admin/roles/new',
    );
    expect(created.status, created.text).to.equal(303);
    expect((await ctx.db('app_auth_roles').where({ label: 'Prestataires' }).first('sign_in_methods'))!.sign_in_methods).to.deep.equal(['passkey', 'password']);

    // `admin` has no such choice.
    const adminRole = (await ctx.db('app_auth_roles').where({ name: 'admin' }).first('id'))!;
    const adminForm = await client.get(`/admin/roles/${adminRole.id}`);
    expect(adminForm.text).not.to.include('name="sign_in_policy"');
  });
});
