import { expect } from 'chai';
import request from 'supertest';
import { linkAccount } from '../../models/auth/linked-accounts.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { caller, makeUser } from '../support/fixtures.js';
import { auditMark, eventsSince } from '../audit/helpers.js';
import { CLIENT_SECRET } from './idp.js';
import { makeProvider, providerInput, signInWith, useSsoSuite } from './helpers.js';

const API = '/app/api/admin/sign-in/providers';

describe('/app/api/admin/sign-in/providers and /admin/sign-in', () => {
  const suite = useSsoSuite();

  it('creates, lists, shows, changes and deletes a provider; the secret is stored encrypted and never answered', async () => {
    const { ctx, app } = suite;
    const admin = await caller(ctx, { permissions: ['admin.access', 'sign_in.manage'] });
    const mark = await auditMark(ctx);
    const created = await request(app)
      .post(API)
      .set('Cookie', admin.cookie)
      .send({ ...providerInput(suite.idp), allow_signup: true, allowed_domains: ['Example.org'], signup_role: 'user' });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.id as number;
    expect(created.body).to.deep.include({
      label: 'Annuaire',
      issuer: suite.idp.issuer,
      client_secret_set: true,
      scopes: ['openid', 'email', 'profile'],
      allow_signup: true,
      allowed_domains: ['example.org'],
      signup_role: 'user',
      enabled: true,
      callback_url: `http://site.test/auth/sso/${id}/callback`,
    });
    expect(created.body).not.to.have.property('client_secret');

    const stored = (await ctx.db('app_auth_sso_providers').where({ id }).first('client_secret'))!;
    expect(stored.client_secret).to.match(/^v1\./);
    expect(stored.client_secret).not.to.include(CLIENT_SECRET);
    const dump = JSON.stringify(await ctx.db('app_auth_sso_providers').select('*'));
    expect(dump).not.to.include(CLIENT_SECRET);

    const list = await request(app).get(API).set('Cookie', admin.cookie);
    const one = await request(app).get(`${API}/${id}`).set('Cookie', admin.cookie);
    expect(list.body.items.map((item: { id: number }) => item.id)).to.deep.equal([id]);
    expect(one.body.label).to.equal('Annuaire');
    for (const answer of [created, list, one]) expect(answer.text).not.to.include(CLIENT_SECRET);

    const changed = await request(app)
      .put(`${API}/${id}`)
      .set('Cookie', admin.cookie)
      .send({ label: 'Annuaire interne', client_secret: 'rotated-secret-value' });
    expect(changed.status).to.equal(200);
    expect(changed.text).not.to.include('rotated-secret-value');
    const rotated = (await ctx.db('app_auth_sso_providers').where({ id }).first('client_secret'))!;
    expect(rotated.client_secret).not.to.equal(stored.client_secret);
    expect(rotated.client_secret).not.to.include('rotated-secret-value');

    const user = await makeUser(ctx);
    await linkAccount(ctx, user.id, id, 'subject-9');
    const removed = await request(app).delete(`${API}/${id}`).set('Cookie', admin.cookie);
    expect(removed.status).to.equal(204);
    expect(await ctx.db('app_auth_sso_providers').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    expect(
      await ctx
        .db('app_auth_accounts')
        .where({ provider: `sso:${id}` })
        .count({ n: '*' }),
    ).to.deep.equal([{ n: 0 }]);

    const events = await eventsSince(ctx, mark);
    expect(events.map((event) => event.action)).to.deep.equal(['sign_in.provider_created', 'sign_in.provider_updated', 'sign_in.provider_deleted']);
    expect(events[1].details).to.deep.equal({ fields: ['label', 'client_secret'] });
    expect(JSON.stringify(events)).not.to.include(CLIENT_SECRET).and.not.to.include('rotated-secret-value');
  });

  it('refuses without sign_in.manage, a bad body with 400 naming the fields, and an http issuer that is not this machine', async () => {
    const { ctx, app } = suite;
    const member = await caller(ctx, { permissions: ['admin.access'] });
    expect((await request(app).get(API).set('Cookie', member.cookie)).status).to.equal(403);
    const admin = await caller(ctx, { role: 'admin' });
    const bad = await request(app)
      .post(API)
      .set('Cookie', admin.cookie)
      .send({ label: '', issuer: 'not a url', client_id: 'x', allowed_domains: ['not a domain'], extra: 1 });
    expect(bad.status).to.equal(400);
    expect(bad.body.details.map((detail: { field: string }) => detail.field)).to.include.members(['label', 'issuer', 'allowed_domains.0', 'extra']);
    const insecure = await request(app).post(API).set('Cookie', admin.cookie).send({ label: 'X', issuer: 'http://idp.example.com', client_id: 'x' });
    expect(insecure.status).to.equal(400);
    expect(insecure.body.details).to.deep.equal([{ field: 'issuer', message: insecure.body.error }]);
    expect(await ctx.db('app_auth_sso_providers').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('the screen adds a provider and shows the callback URL to register; the login page shows its button', async () => {
    const { ctx, app } = suite;
    const admin = await AdminClient.as(app, { role: 'admin' });
    const saved = await admin.post(
      '/admin/sign-in',
      {
        label: 'Annuaire',
        issuer: suite.idp.issuer,
        client_id: 'site-test-client',
        client_secret: CLIENT_SECRET,
        scopes: 'openid email',
        allow_signup: '1',
        allowed_domains: 'example.org, example.com',
        signup_role: '',
        enabled: '1',
      },
      '/admin/sign-in',
    );
    expect(saved.status, saved.text).to.equal(303);
    const provider = (await ctx.db('app_auth_sso_providers').first())!;
    expect(provider).to.deep.include({
      label: 'Annuaire',
      scopes: 'openid email',
      allow_signup: true,
      allowed_domains: ['example.org', 'example.com'],
      enabled: true,
    });
    const detail = await admin.follow(saved);
    expect(textOf(detail.text)).to.include(`http://site.test/auth/sso/${provider.id}/callback`);
    expect(detail.text).not.to.include(CLIENT_SECRET);
    const login = await request(app).get('/auth/login');
    expect(login.text).to.include(`href="/auth/sso/${provider.id}"`);
    expect(textOf(login.text)).to.include('Se connecter avec Annuaire');
  });

  it('/account lists linked providers and refuses to unlink the last way to sign in', async () => {
    const { ctx, app } = suite;
    const provider = await makeProvider(suite, { allow_signup: true });
    const { client } = await signInWith(suite, provider.id);
    const user = (await ctx.db('app_auth_users').first())!;
    const account = await client.get('/account');
    expect(textOf(account.text)).to.include('Fournisseurs de connexion liés').and.include('Annuaire');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(account.text)![1];
    const refused = await client.agent.post(`/account/sso/${provider.id}/delete`).type('form').send({ _csrf: csrf });
    expect(refused.status).to.equal(409);
    expect(textOf(refused.text)).to.include('dernier moyen de connexion');
    expect(await ctx.db('app_auth_accounts').where({ user_id: user.id }).pluck('provider')).to.deep.equal([`sso:${provider.id}`]);

    const other = await makeProvider(suite, { label: 'Autre' });
    await linkAccount(ctx, user.id, other.id, 'elsewhere-1');
    const mark = await auditMark(ctx);
    const unlinked = await client.agent.post(`/account/sso/${provider.id}/delete`).type('form').send({ _csrf: csrf });
    expect(unlinked.status).to.equal(303);
    expect(await ctx.db('app_auth_accounts').where({ user_id: user.id }).pluck('provider')).to.deep.equal([`sso:${other.id}`]);
    expect((await eventsSince(ctx, mark)).map((event) => event.action)).to.deep.equal(['auth.sso_unlinked']);
    void app;
  });
});
