// Passkeys through the JSON routes, answered by a software authenticator
// (test/support/authenticator.ts): addition behind the current password, list, removal,
// and the sign-in with one; each refusal (wrong, replayed or expired challenge, unknown
// credential, counter going back, wrong origin) leaves no session and an audit row.
import { expect } from 'chai';
import request from 'supertest';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import type { AppContext } from '../../lib/context.js';
import { useAppWithSmtp, type App } from '../support/app.js';
import { SoftAuthenticator } from '../support/authenticator.js';
import { PASSWORD, caller } from '../support/fixtures.js';
import { FormClient, useFakeClock } from '../support/form-client.js';
import type { TestSmtpServer } from '../support/smtp.js';
import { enrolTwoFactor } from '../support/two-factor.js';

const ORIGIN = 'http://site.test';
const RP_ID = 'site.test';

describe('passkeys', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;
  const clock = useFakeClock();

  useAppWithSmtp({}, (createdApp, startedSmtp, context) => {
    app = createdApp;
    smtp = startedSmtp;
    ctx = context;
  });

  const api = (method: 'get' | 'post' | 'delete', path: string, cookie: string, body?: object) =>
    request(app)[method](`/app/api/users/profile${path}`).set('Cookie', cookie).send(body);
  const events = (action: string) => ctx.db('app_audit_events').where({ action }).orderBy('id');

  /** An account with one passkey added through the API; its authenticator. */
  async function withPasskey(name = 'Téléphone') {
    const user = await caller(ctx, { email: 'ada@example.com', name: 'Ada' });
    const authenticator = new SoftAuthenticator(ORIGIN, RP_ID);
    const options = await api('post', '/passkeys/options', user.cookie, { current_password: PASSWORD });
    expect(options.status).to.equal(200);
    const added = await api('post', '/passkeys', user.cookie, { name, response: authenticator.create(options.body as PublicKeyCredentialCreationOptionsJSON) });
    expect(added.status, added.text).to.equal(201);
    return { user, authenticator, added: added.body as { id: number; name: string; created_at: string } };
  }

  /** A browser on the login page: the options (its challenge cookie), then the answer. */
  async function signIn(authenticator: SoftAuthenticator, bend: Parameters<SoftAuthenticator['get']>[1] = {}, client = new FormClient(app, clock)) {
    const { _csrf } = await client.tokens('/auth/login');
    const options = await client.agent.post('/auth/passkey/options').set('Accept', 'application/json').set('X-CSRF-Token', _csrf).send({});
    expect(options.status, options.text).to.equal(200);
    const response = authenticator.get(options.body, bend);
    const answer = await client.agent.post('/auth/passkey').set('Accept', 'application/json').set('X-CSRF-Token', _csrf).send({ response });
    return { client, options, answer, response, csrf: _csrf };
  }

  describe('on the profile', () => {
    it('gives creation options after the right password: rpID from BASE_URL, user verification and a resident key required, existing ones excluded', async () => {
      const { user, authenticator } = await withPasskey();
      const options = await api('post', '/passkeys/options', user.cookie, { current_password: PASSWORD });
      expect(options.status).to.equal(200);
      expect(options.body.rp).to.deep.equal({ name: 'Site de test', id: RP_ID });
      expect(options.body.user).to.include({ name: 'ada@example.com', displayName: 'Ada' });
      expect(options.body.authenticatorSelection).to.include({ residentKey: 'required', userVerification: 'required', requireResidentKey: true });
      expect(options.body.excludeCredentials.map((credential: { id: string }) => credential.id)).to.deep.equal([authenticator.id]);
      const stored = await ctx.db('app_auth_passkey_challenges').where({ user_id: user.id });
      expect(stored).to.have.length(1);
      expect(stored[0]).to.include({ purpose: 'registration', challenge: options.body.challenge });
    });

    it('adds one with the right password: 201, stored with its key and flags, audited, the account told by email', async () => {
      const { user, added } = await withPasskey('Clé USB');
      expect(added).to.have.all.keys('id', 'name', 'created_at');
      expect(added.name).to.equal('Clé USB');
      const [row] = await ctx.db('app_auth_passkeys').where({ user_id: user.id });
      expect(row).to.include({ name: 'Clé USB', counter: 0, device_type: 'singleDevice', backed_up: false, last_used_at: null });
      expect(row.transports).to.deep.equal(['internal']);
      expect(row.public_key.length).to.be.greaterThan(60);
      const [event] = await events('account.passkey_added');
      expect(event).to.include({ actor_id: user.id, target_id: String(user.id) });
      expect(event.details).to.deep.equal({ passkey: 'Clé USB' });
      const mail = await smtp.waitForMessage('ada@example.com');
      expect(mail.subject).to.equal('Nouvelle clé d’accès ajoutée — Site de test');
      expect(mail.text).to.include('«\u00a0Clé USB\u00a0»').and.include('http://site.test/account');
      // The challenge served once.
      expect(await ctx.db('app_auth_passkey_challenges')).to.have.length(0);
    });

    it('refuses the options with a wrong password (400 on the field) and stores no challenge', async () => {
      const user = await caller(ctx);
      const refused = await api('post', '/passkeys/options', user.cookie, { current_password: 'not the password' });
      expect(refused.status).to.equal(400);
      expect(refused.body.code).to.equal('current_password_wrong');
      expect(await ctx.db('app_auth_passkey_challenges')).to.have.length(0);
    });

    it('refuses an answer without options of this session, and one from another origin', async () => {
      const user = await caller(ctx);
      const authenticator = new SoftAuthenticator(ORIGIN, RP_ID);
      const options = await api('post', '/passkeys/options', user.cookie, { current_password: PASSWORD });
      const elsewhere = await api('post', '/passkeys', user.cookie, {
        name: 'X',
        response: authenticator.create(options.body, { origin: 'http://evil.test' }),
      });
      expect(elsewhere.status).to.equal(400);
      expect(elsewhere.body.code).to.equal('passkey_refused');
      // That answer spent the challenge: the right one now finds none.
      const late = await api('post', '/passkeys', user.cookie, { name: 'X', response: authenticator.create(options.body) });
      expect(late.status).to.equal(400);
      expect(late.body.code).to.equal('passkey_challenge_expired');
      expect(await ctx.db('app_auth_passkeys')).to.have.length(0);
    });

    it('refuses a malformed answer and a missing name with messages, never a 500', async () => {
      const user = await caller(ctx);
      const bad = await api('post', '/passkeys', user.cookie, { name: '', response: { id: 'x' } });
      expect(bad.status).to.equal(400);
      expect(bad.body.details.map((detail: { field: string }) => detail.field).sort()).to.deep.equal(['name', 'response']);
    });

    it('lists them with their dates, and removes one with the right password only (audited)', async () => {
      const { user, added } = await withPasskey();
      const list = await api('get', '/passkeys', user.cookie);
      expect(list.status).to.equal(200);
      expect(list.body.items).to.have.length(1);
      expect(list.body.items[0]).to.have.all.keys('id', 'name', 'created_at', 'last_used_at');
      expect(list.body.items[0]).to.include({ id: added.id, name: 'Téléphone', last_used_at: null });

      const wrong = await api('delete', `/passkeys/${added.id}`, user.cookie, { current_password: 'nope nope' });
      expect(wrong.status).to.equal(400);
      expect(await ctx.db('app_auth_passkeys')).to.have.length(1);
      const other = await caller(ctx);
      const notTheirs = await api('delete', `/passkeys/${added.id}`, other.cookie, { current_password: PASSWORD });
      expect(notTheirs.status).to.equal(404);

      const removed = await api('delete', `/passkeys/${added.id}`, user.cookie, { current_password: PASSWORD });
      expect(removed.status).to.equal(204);
      expect(await ctx.db('app_auth_passkeys')).to.have.length(0);
      const [event] = await events('account.passkey_removed');
      expect(event.details).to.deep.equal({ passkey: 'Téléphone' });
    });
  });

  describe('POST /auth/passkey', () => {
    it('signs in without a password: discoverable options, the login answer, a session that opens /account, the counter kept', async () => {
      const { user, authenticator } = await withPasskey();
      const { client, options, answer } = await signIn(authenticator);
      expect(options.body).to.include({ rpId: RP_ID, userVerification: 'required' });
      expect(options.body.allowCredentials ?? []).to.deep.equal([]);
      expect(String(options.headers['set-cookie'])).to.match(/site\.passkey=[^;]+;.*HttpOnly/i);
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body).to.include({ success: true, redirect: '/account' });
      expect(answer.body.user).to.include({ id: user.id, email: 'ada@example.com' });
      expect(answer.body.user).not.to.have.any.keys('permissions', 'password_hash');
      const account = await client.get('/account');
      expect(account.status).to.equal(200);
      const [row] = await ctx.db('app_auth_passkeys').where({ user_id: user.id });
      expect(row.counter).to.equal(1);
      expect(row.last_used_at).to.be.an.instanceOf(Date);
      const logins = await events('auth.login');
      expect(logins).to.have.length(1);
      expect(logins[0].details).to.deep.equal({ method: 'passkey' });
    });

    it('answers a form post with a 303 to the landing page', async () => {
      const { authenticator } = await withPasskey();
      const client = new FormClient(app, clock);
      const { _csrf } = await client.tokens('/auth/login');
      const options = await client.agent.post('/auth/passkey/options').set('Accept', 'application/json').set('X-CSRF-Token', _csrf).send({});
      const answer = await client.agent
        .post('/auth/passkey')
        .type('form')
        .send({ _csrf, response: JSON.stringify(authenticator.get(options.body)) });
      expect(answer.status, answer.text).to.equal(303);
      expect(answer.headers.location).to.equal('/account');
    });

    it("refuses a replayed answer: its challenge served once, another browser's challenge is not the one signed", async () => {
      const { authenticator } = await withPasskey();
      const first = await signIn(authenticator);
      expect(first.answer.status).to.equal(200);
      expect(await ctx.db('app_auth_passkey_challenges')).to.have.length(0);
      const client = new FormClient(app, clock);
      const { _csrf } = await client.tokens('/auth/login');
      await client.agent.post('/auth/passkey/options').set('Accept', 'application/json').set('X-CSRF-Token', _csrf).send({});
      const again = await client.agent.post('/auth/passkey').set('Accept', 'application/json').set('X-CSRF-Token', _csrf).send({ response: first.response });
      expect(again.status).to.equal(401);
      expect(again.body.code).to.equal('invalid_credentials');
      expect(await events('auth.login')).to.have.length(1);
    });

    it('refuses a wrong challenge, an expired one, an unknown credential and another origin, each with an audit row and no session', async () => {
      const { user, authenticator } = await withPasskey();
      const wrong = await signIn(authenticator, { challenge: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
      expect(wrong.answer.status).to.equal(401);
      expect(wrong.answer.body.code).to.equal('invalid_credentials');
      expect((await wrong.client.get('/account')).status).to.equal(303);

      const client = new FormClient(app, clock);
      const { _csrf } = await client.tokens('/auth/login');
      const options = await client.agent.post('/auth/passkey/options').set('Accept', 'application/json').set('X-CSRF-Token', _csrf).send({});
      clock.advance(5 * 60 * 1000 + 1000);
      const expired = await client.agent
        .post('/auth/passkey')
        .set('Accept', 'application/json')
        .set('X-CSRF-Token', _csrf)
        .send({ response: authenticator.get(options.body) });
      expect(expired.status).to.equal(401);

      const stranger = new SoftAuthenticator(ORIGIN, RP_ID);
      const unknown = await signIn(stranger);
      expect(unknown.answer.status).to.equal(401);

      const elsewhere = await signIn(authenticator, { origin: 'http://evil.test' });
      expect(elsewhere.answer.status).to.equal(401);

      const failures = await events('auth.login_failed');
      expect(failures.map((event) => event.details)).to.deep.equal([
        { reason: 'invalid_signature', method: 'passkey' },
        { reason: 'challenge_missing', method: 'passkey' },
        { reason: 'unknown_passkey', method: 'passkey' },
        { reason: 'invalid_signature', method: 'passkey' },
      ]);
      expect(failures.map((event) => event.target_id)).to.deep.equal([String(user.id), String(user.id), null, String(user.id)]);
      expect(await events('auth.login')).to.have.length(0);
    });

    it('refuses a counter going back (a cloned authenticator) and audits it', async () => {
      const { user, authenticator } = await withPasskey();
      expect((await signIn(authenticator, { counter: 7 })).answer.status).to.equal(200);
      const cloned = await signIn(authenticator, { counter: 3 });
      expect(cloned.answer.status).to.equal(401);
      expect(cloned.answer.body.code).to.equal('invalid_credentials');
      const [event] = await events('auth.passkey_cloned');
      expect(event).to.include({ target_id: String(user.id) });
      expect(event.details).to.deep.equal({ method: 'passkey', counter: 3, stored_counter: 7 });
      const [row] = await ctx.db('app_auth_passkeys').where({ user_id: user.id });
      expect(row.counter).to.equal(7);
    });

    it('refuses a suspended account like the password login does', async () => {
      const { user, authenticator } = await withPasskey();
      await ctx.db('app_auth_users').where({ id: user.id }).update({ suspended_at: new Date() });
      const { answer } = await signIn(authenticator);
      expect(answer.status).to.equal(401);
      expect(answer.body.code).to.equal('account_suspended');
      const [failure] = await events('auth.login_failed');
      expect(failure.details).to.deep.equal({ reason: 'account_suspended', method: 'passkey' });
    });

    it('refuses options asked without the CSRF token of the page', async () => {
      const client = new FormClient(app, clock);
      await client.tokens('/auth/login');
      const options = await client.agent.post('/auth/passkey/options').set('Accept', 'application/json').send({});
      expect(options.status).to.equal(403);
    });
  });

  describe('POST /auth/2fa/passkey', () => {
    /** The password step of an account with two-step verification: a pending login in this browser. */
    async function pendingLogin() {
      const client = new FormClient(app, clock);
      const step = await client.submit('/auth/login', { email: 'ada@example.com', password: PASSWORD }, { json: true });
      expect(step.status).to.equal(401);
      expect(step.body.code).to.equal('second_factor_required');
      const { _csrf } = await client.tokens('/auth/2fa');
      const post = (path: string, body: object) => client.agent.post(path).set('Accept', 'application/json').set('X-CSRF-Token', _csrf).send(body);
      return { client, post };
    }

    it("completes a pending login with a passkey instead of a code: the account's passkeys offered, a session, the method audited", async () => {
      const { user, authenticator } = await withPasskey();
      await enrolTwoFactor(ctx, user);
      const { client, post } = await pendingLogin();
      const options = await post('/auth/2fa/passkey/options', {});
      expect(options.status, options.text).to.equal(200);
      expect(options.body.allowCredentials.map((credential: { id: string }) => credential.id)).to.deep.equal([authenticator.id]);
      const answer = await post('/auth/2fa/passkey', { response: authenticator.get(options.body) });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body).to.include({ success: true, redirect: '/account' });
      expect((await client.get('/account')).status).to.equal(200);
      const [login] = await events('auth.login');
      expect(login.details).to.deep.equal({ method: 'password', second_factor: 'passkey' });
      expect(await ctx.db('app_auth_pending_logins')).to.have.length(0);
    });

    it('refuses without a pending login, and counts a refused signature as a wrong code', async () => {
      const { user, authenticator } = await withPasskey();
      await enrolTwoFactor(ctx, user);
      const stranger = new FormClient(app, clock);
      const { _csrf } = await stranger.tokens('/auth/login');
      const none = await stranger.agent.post('/auth/2fa/passkey/options').set('Accept', 'application/json').set('X-CSRF-Token', _csrf).send({});
      expect(none.status).to.equal(401);
      expect(none.body.code).to.equal('second_factor_expired');

      const { client, post } = await pendingLogin();
      const options = await post('/auth/2fa/passkey/options', {});
      const elsewhere = await post('/auth/2fa/passkey', { response: authenticator.get(options.body, { origin: 'http://evil.test' }) });
      expect(elsewhere.status).to.equal(401);
      expect(elsewhere.body.code).to.equal('second_factor_wrong');
      const [failure] = await events('auth.second_factor_failed');
      expect(failure.details).to.deep.equal({ attempts_left: 4, method: 'passkey' });
      expect((await client.get('/account')).status).to.equal(303);
      expect(await events('auth.login')).to.have.length(0);
    });
  });
});
