// The passkeys on the pages: the profile's section (list, removal behind the current
// password, the addition form left to the script), the login page's button (hidden until
// the script finds WebAuthn) and the browser library served as an asset.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { PASSWORD, makeUser } from '../support/fixtures.js';

describe('passkeys on the pages', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  async function passkeyOf(userId: number, name: string): Promise<number> {
    const [row] = await ctx
      .db('app_auth_passkeys')
      .insert({ user_id: userId, credential_id: `cred-${name}`, public_key: Buffer.from([1]), device_type: 'multiDevice', name })
      .returning('id');
    return row.id;
  }

  it('lists the passkeys on /account with their dates, and removes one behind the current password', async () => {
    const client = await AdminClient.as(app, { email: 'ada@example.com' });
    const id = await passkeyOf(client.user.id, 'Téléphone <perso>');
    await ctx.db('app_auth_passkeys').where({ id }).update({ last_used_at: new Date() });
    const page = await client.get('/account');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('id="passkeys-title"').and.include('Téléphone &lt;perso&gt;');
    expect(page.text).to.include(`action="/account/passkeys/${id}/delete"`);
    expect(page.text).to.match(/<script src="\/assets\/vendor\/simplewebauthn-browser\.[0-9a-f]{16}\.js" defer><\/script>/);
    expect(page.text).to.match(/<form class="admin-form passkey-add" data-passkey-add hidden/);
    expect(textOf(page.text)).to.include('Ajouter une clé d’accès');

    const wrong = await client.post(`/account/passkeys/${id}/delete`, { current_password: 'not it at all' });
    expect(wrong.status).to.equal(400);
    expect(textOf(wrong.text)).to.include('Le mot de passe actuel est incorrect.');
    expect(await ctx.db('app_auth_passkeys')).to.have.length(1);

    const removed = await client.post(`/account/passkeys/${id}/delete`, { current_password: PASSWORD });
    expect(removed.status).to.equal(303);
    expect(removed.headers.location).to.equal('/account');
    expect(textOf((await client.follow(removed)).text))
      .to.include('La clé d’accès est retirée.')
      .and.include('Aucune clé d’accès pour ce compte.');
    expect(await ctx.db('app_auth_passkeys')).to.have.length(0);
    expect(await ctx.db('app_audit_events').where({ action: 'account.passkey_removed' })).to.have.length(1);
  });

  it('refuses to remove another account’s passkey (404)', async () => {
    const client = await AdminClient.as(app);
    const other = await AdminClient.as(app);
    const id = await passkeyOf(other.user.id, 'Autre');
    const refused = await client.post(`/account/passkeys/${id}/delete`, { current_password: PASSWORD });
    expect(refused.status).to.equal(404);
    expect(await ctx.db('app_auth_passkeys')).to.have.length(1);
  });

  it('puts the passkey button on the login page hidden: without JavaScript the password form is the page', async () => {
    await makeUser(ctx);
    const page = await request(app).get('/auth/login');
    expect(page.status).to.equal(200);
    expect(page.text).to.match(/<div class="passkey-login" data-passkey-login hidden\s+data-form="\/auth\/login"/);
    expect(page.text).to.include('Se connecter avec une clé d’accès');
    expect(page.text).to.include('<form method="post" action="/auth/login"');
  });

  it("offers a passkey on the second step's page, hidden until the script finds WebAuthn", async () => {
    await makeUser(ctx);
    const page = await request(app).get('/auth/2fa');
    expect(page.status).to.equal(200);
    // Without a pending login the page has no form: nothing to offer either.
    expect(page.text).not.to.include('data-passkey-login');
  });

  it('serves the browser library from the installed package under a name that carries its hash, cached for a year (immutable)', async () => {
    await makeUser(ctx);
    const page = await request(app).get('/auth/login');
    const url = /<script src="(\/assets\/vendor\/simplewebauthn-browser\.[0-9a-f]{16}\.js)" defer>/.exec(page.text)?.[1];
    expect(url, 'the login page names the bundle by its hash').to.be.a('string');
    const asset = await request(app).get(url!);
    expect(asset.status).to.equal(200);
    expect(asset.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(url).to.include(createHash('sha256').update(asset.text).digest('hex').slice(0, 16));
    // The unversioned name is gone: nothing may cache it for a year under a name that stays.
    expect((await request(app).get('/assets/vendor/simplewebauthn-browser.js')).status).to.equal(404);
    expect(asset.headers['content-type']).to.match(/javascript/);
    expect(asset.text).to.match(/^\/\* \[@simplewebauthn\/browser@14\.0\.0\] \*\//);
    expect(asset.text).to.include('SimpleWebAuthnBrowser');
  });
});
