// Passkeys, the rest of issue 27: renaming (API and /account), refused signatures
// spending the account's budget, the roles' sign-in policy, a role's two-step
// requirement met by a passkey, the method of the session in the profile's list, and
// the login page's hooks for the browser's passkey autofill.
import { expect } from 'chai';
import request from 'supertest';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import type { AppContext } from '../../lib/context.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { useAppWithSmtp, type App } from '../support/app.js';
import { SoftAuthenticator } from '../support/authenticator.js';
import { PASSWORD, caller, makeRole, type MakeUserOptions } from '../support/fixtures.js';
import { FormClient, useFakeClock } from '../support/form-client.js';

const ORIGIN = 'http://site.test';
const RP_ID = 'site.test';

describe('passkeys: renaming, budgets, the sign-in policy, the method of a session', function () {
  // Each passkey added costs a password check and a ceremony: slow on a busy machine.
  this.timeout(60_000);
  let app: App;
  let ctx: AppContext;
  const clock = useFakeClock();

  // Two wrong answers spend an account's budget here (10 by default).
  useAppWithSmtp({ BASE_URL: ORIGIN, RATE_LIMIT_LOGIN_ACCOUNT: '2/15m' }, (createdApp, _smtp, context) => {
    app = createdApp;
    ctx = context;
  });

  const api = (method: 'get' | 'post' | 'patch', path: string, cookie: string, body?: object) =>
    request(app)[method](`/app/api/users/profile${path}`).set('Cookie', cookie).set('Accept', 'application/json').send(body);
  const events = (action: string) => ctx.db('app_audit_events').where({ action }).orderBy('id');

  async function withPasskey(options: MakeUserOptions = {}) {
    const user = await caller(ctx, { email: 'ada@example.com', name: 'Ada', ...options });
    const authenticator = new SoftAuthenticator(ORIGIN, RP_ID);
    const creation = await api('post', '/passkeys/options', user.cookie, { current_password: PASSWORD });
    const added = await api('post', '/passkeys', user.cookie, {
      name: 'Téléphone',
      response: authenticator.create(creation.body as PublicKeyCredentialCreationOptionsJSON),
    });
    expect(added.status, added.text).to.equal(201);
    return { user, authenticator, id: added.body.id as number };
  }

  async function signIn(authenticator: SoftAuthenticator, bend: Parameters<SoftAuthenticator['get']>[1] = {}, client = new FormClient(app, clock)) {
    const { _csrf } = await client.tokens('/auth/login');
    const options = await client.agent.post('/auth/passkey/options').set('Accept', 'application/json').set('X-CSRF-Token', _csrf).send({});
    expect(options.status, options.text).to.equal(200);
    const answer = await client.agent
      .post('/auth/passkey')
      .set('Accept', 'application/json')
      .set('X-CSRF-Token', _csrf)
      .send({ response: authenticator.get(options.body, bend) });
    return { client, answer };
  }

  describe('renaming', () => {
    it('PATCH /app/api/users/profile/passkeys/:id {name} → 200 with the passkey, stored and audited; another account’s is 404', async () => {
      const { user, id } = await withPasskey();
      const renamed = await api('patch', `/passkeys/${id}`, user.cookie, { name: '  Clé du bureau ' });
      expect(renamed.status, renamed.text).to.equal(200);
      expect(renamed.body).to.have.all.keys('id', 'name', 'created_at', 'last_used_at');
      expect(renamed.body).to.include({ id, name: 'Clé du bureau' });
      expect((await ctx.db('app_auth_passkeys').where({ id }).first())!.name).to.equal('Clé du bureau');
      const [event] = await events('account.passkey_renamed');
      expect(event).to.deep.include({ actor_id: user.id, target_id: String(user.id), details: { passkey: 'Clé du bureau', from: 'Téléphone' } });

      const empty = await api('patch', `/passkeys/${id}`, user.cookie, { name: '' });
      expect(empty.status).to.equal(400);
      const other = await caller(ctx, { email: 'bob@example.com' });
      const foreign = await api('patch', `/passkeys/${id}`, other.cookie, { name: 'À moi' });
      expect(foreign.status).to.equal(404);
      expect((await ctx.db('app_auth_passkeys').where({ id }).first())!.name).to.equal('Clé du bureau');
      expect(await events('account.passkey_renamed')).to.have.length(1);
    });

    it('renames one from /account with its form', async () => {
      const client = await AdminClient.as(app, { email: 'ada@example.com' });
      const [row] = await ctx
        .db('app_auth_passkeys')
        .insert({
          user_id: client.user.id,
          credential_id: 'cred-1',
          public_key: Buffer.from([1]),
          counter: 0,
          transports: [],
          device_type: 'singleDevice',
          backed_up: false,
          name: 'Téléphone',
        })
        .returning('id');
      const page = await client.get('/account');
      expect(page.text).to.include(`action="/account/passkeys/${row.id}/rename"`);
      const saved = await client.post(`/account/passkeys/${row.id}/rename`, { name: 'Portable' });
      expect(saved.status).to.equal(303);
      const after = await client.follow(saved);
      expect(textOf(after.text)).to.include('La clé d’accès est renommée.').and.include('Portable');
      expect((await ctx.db('app_auth_passkeys').where({ id: row.id }).first())!.name).to.equal('Portable');
      const refused = await client.post(`/account/passkeys/${row.id}/rename`, { name: '' });
      expect(refused.status).to.equal(400);
    });
  });

  it('counts refused signatures against the account’s budget of wrong passwords, shared with the password form', async () => {
    const { authenticator } = await withPasskey();
    for (let i = 0; i < 2; i++) {
      const { answer } = await signIn(authenticator, { origin: 'http://elsewhere.test' });
      expect(answer.status).to.equal(401);
    }
    const counters = await ctx.db('app_auth_rate_limits').where('key', 'like', 'login_account:%').select('key', 'hits');
    expect(counters.map((row) => row.hits)).to.deep.equal([2, 2]);
    // Spent: even a right signature waits, and so does the password of that address.
    const { answer } = await signIn(authenticator);
    expect(answer.status).to.equal(429);
    expect(answer.headers['retry-after']).to.match(/^\d+$/);
    const password = await new FormClient(app, clock).submit('/auth/login', { email: 'ada@example.com', password: PASSWORD }, { json: true });
    expect(password.status).to.equal(429);
    expect(await events('auth.login')).to.have.length(0);
    expect(await events('auth.login_throttled')).to.have.length(1);
  });

  it('refuses a passkey sign-in when the account’s roles do not allow passkeys, naming the ways left', async () => {
    const roleId = await makeRole(ctx, [], 'passwords-only');
    await ctx
      .db('app_auth_roles')
      .where({ id: roleId })
      .update({ sign_in_methods: ['password'] });
    const { user, authenticator } = await withPasskey({ role: 'passwords-only' });
    const { answer, client } = await signIn(authenticator);
    expect(answer.status).to.equal(401);
    expect(answer.body).to.deep.include({ code: 'sign_in_method_not_allowed', error: 'La connexion à ce compte se fait avec le mot de passe.' });
    expect((await client.get('/account')).status).to.equal(303);
    const [failure] = await events('auth.login_failed');
    expect(failure).to.deep.include({ target_id: String(user.id), details: { reason: 'method_not_allowed', method: 'passkey' } });
    expect(await events('auth.login')).to.have.length(0);
  });

  it('meets a role’s two-step requirement with a passkey sign-in, and shows the method in the session list (page and API)', async () => {
    const roleId = await makeRole(ctx, [], 'guarded');
    await ctx.db('app_auth_roles').where({ id: roleId }).update({ require_2fa: true });
    // Added before the role is given: a member who must enrol reaches nothing else, passkeys included.
    const { user, authenticator } = await withPasskey();
    await ctx.db('app_auth_users').where({ id: user.id }).update({ role_id: roleId });
    const { answer, client } = await signIn(authenticator);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body.redirect).to.equal('/account');
    const page = await client.get('/account');
    expect(page.status).to.equal(200);
    expect(textOf(page.text)).to.include('Connexion').and.include('Clé d’accès');
    const rows = await ctx.db('app_auth_sessions').where({ user_id: user.id }).orderBy('created_at').select('sign_in_method', 'second_factor');
    expect(rows).to.deep.include({ sign_in_method: 'passkey', second_factor: null });
    const listed = await client.agent.get('/app/api/users/profile/sessions').set('Accept', 'application/json');
    expect(listed.status).to.equal(200);
    const current = listed.body.items.find((session: { current: boolean }) => session.current);
    expect(current).to.include({ sign_in_method: 'passkey', second_factor: null, provider: null, method_label: 'Clé d’accès' });
  });

  it('asks an account with a passkey and no code, in a role requiring two steps, for its passkey after the password', async () => {
    const roleId = await makeRole(ctx, [], 'guarded');
    await ctx.db('app_auth_roles').where({ id: roleId }).update({ require_2fa: true });
    const { user, authenticator } = await withPasskey();
    await ctx.db('app_auth_users').where({ id: user.id }).update({ role_id: roleId });
    const sessionsOf = () => ctx.db('app_auth_sessions').where({ user_id: user.id }).whereNotNull('sign_in_method').select('sign_in_method', 'second_factor');
    const byPassword = new FormClient(app, clock);
    const landed = await byPassword.submit('/auth/login', { email: 'ada@example.com', password: PASSWORD });
    // The password opens no session: the second step's page, offering the passkey alone.
    expect(landed.status).to.equal(303);
    expect(landed.headers.location).to.equal('/auth/2fa');
    expect(await sessionsOf()).to.have.length(0);
    const page = await byPassword.get('/auth/2fa');
    expect(page.status).to.equal(200);
    expect(page.text).to.not.include('name="code"');
    expect(textOf(page.text)).to.include('Confirmez la connexion avec votre clé d’accès').and.include('Utiliser une clé d’accès');
    const { _csrf } = await byPassword.tokens('/auth/2fa');
    const post = (path: string, body: object) => byPassword.agent.post(path).set('Accept', 'application/json').set('X-CSRF-Token', _csrf).send(body);
    const options = await post('/auth/2fa/passkey/options', {});
    expect(options.status, options.text).to.equal(200);
    const answer = await post('/auth/2fa/passkey', { response: authenticator.get(options.body) });
    expect(answer.status, answer.text).to.equal(200);
    // The role's requirement is met by the passkey: no enrolment page.
    expect(answer.body.redirect).to.equal('/account');
    expect((await byPassword.get('/account')).status).to.equal(200);
    expect(await sessionsOf()).to.deep.equal([{ sign_in_method: 'password', second_factor: 'passkey' }]);
    // Without a passkey, the same role still sends a password sign-in to set up a code.
    const other = await caller(ctx, { email: 'bob@example.com', name: 'Bob' });
    await ctx.db('app_auth_users').where({ id: other.id }).update({ role_id: roleId });
    const bob = new FormClient(app, clock);
    const bobLanded = await bob.submit('/auth/login', { email: 'bob@example.com', password: PASSWORD });
    expect(bobLanded.headers.location).to.equal('/account/2fa');
    expect((await bob.get('/account')).headers.location).to.equal('/account/2fa');
  });

  it('marks the login page for the browser’s passkey autofill: the address field and the waiting request', async () => {
    await caller(ctx, { email: 'ada@example.com' });
    const page = await request(app).get('/auth/login');
    expect(page.text).to.match(/<input id="f-email" name="email" type="email" value="" required autocomplete="username webauthn"/);
    expect(page.text).to.match(/data-passkey-login hidden[^>]*data-autofill/);
    const second = await request(app).get('/auth/2fa');
    expect(second.text).not.to.include('data-autofill');
  });
});
