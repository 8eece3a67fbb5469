// The roles' sign-in policy and the provider's MFA (issue 27, item 4), against the real
// provider of test/sso/idp.ts: its ID token carries the `amr` and `acr` of the person's
// sign-in there. Also the method of each sign-in in `auth.login` and on the session row,
// and «Compte lié à <fournisseur>» (item 5).
import { expect } from 'chai';
import { textOf } from '../support/admin-client.js';
import { makeRole, makeUser, PASSWORD } from '../support/fixtures.js';
import { FormClient, hiddenField } from '../support/form-client.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { enrolTwoFactor, totpNow } from '../support/two-factor.js';
import { auditMark, eventsSince } from '../audit/helpers.js';
import { allSessions, makeProvider, sessionsOf, signInWith, useSsoSuite } from './helpers.js';

describe('Single sign-on: sign-in policy per role, MFA from the provider, the method of each sign-in', () => {
  let smtp: TestSmtpServer;
  before(async () => {
    smtp = await startSmtpServer();
  });
  after(() => smtp.close());
  const suite = useSsoSuite(() => ({ SMTP_URL: smtp.url }));

  async function sessionRows(userId: number) {
    return suite.ctx.db('app_auth_sessions').where({ user_id: userId }).select('sign_in_method', 'second_factor');
  }

  describe('a role that requires single sign-on', () => {
    async function ssoOnlyMember() {
      const { ctx } = suite;
      const provider = await makeProvider(suite, { label: 'Annuaire interne' });
      const roleId = await makeRole(ctx, ['admin.access'], 'staff');
      await ctx
        .db('app_auth_roles')
        .where({ id: roleId })
        .update({ sign_in_methods: [`sso:${provider.id}`] });
      const user = await makeUser(ctx, { email: 'ada@example.org', role: 'staff' });
      await ctx.db('app_auth_accounts').insert({ user_id: user.id, provider: `sso:${provider.id}`, account_id: 'subject-1' });
      return { provider, user };
    }

    it('refuses the password form naming the provider, with the same answer whether the password is right or not', async () => {
      const { ctx, app, clock } = suite;
      const { user } = await ssoOnlyMember();
      const mark = await auditMark(ctx);
      const answers = [];
      for (const password of [PASSWORD, 'wrong password here']) {
        const client = new FormClient(app, clock);
        answers.push(await client.submit('/auth/login', { email: 'ada@example.org', password }));
      }
      const [right, wrong] = answers;
      expect(right.status).to.equal(401);
      expect(wrong.status).to.equal(401);
      const message = 'La connexion à ce compte se fait avec «\u00a0Annuaire interne\u00a0».';
      expect(textOf(right.text)).to.include('La connexion à ce compte se fait avec « Annuaire interne ».');
      // No oracle: the pages differ only by their per-request tokens.
      const strip = (html: string) => html.replace(/value="[^"]*"/g, '').replace(/nonce="[^"]*"/g, '');
      expect(strip(right.text)).to.equal(strip(wrong.text));
      // JSON says the same, with its code.
      const json = await new FormClient(app, clock).submit('/auth/login', { email: 'ada@example.org', password: PASSWORD }, { json: true });
      expect(json.status).to.equal(401);
      expect(json.body).to.deep.include({ success: false, error: message, code: 'sign_in_method_not_allowed' });
      expect(await allSessions(ctx)).to.equal(0);
      const events = await eventsSince(ctx, mark);
      expect(events.map((event) => [event.action, event.target_id, event.details])).to.deep.equal(
        Array.from({ length: 3 }, () => ['auth.login_failed', String(user.id), { reason: 'method_not_allowed', method: 'password' }]),
      );
      // No password was checked: the account's budget of wrong passwords is untouched.
      expect(await ctx.db('app_auth_rate_limits').where('key', 'like', 'login_account:%')).to.have.length(0);
    });

    it('lets the member in through that provider, and refuses another provider with a page that names the allowed one', async () => {
      const { ctx } = suite;
      const { provider, user } = await ssoOnlyMember();
      const { answer } = await signInWith(suite, provider.id);
      expect(answer.status, answer.text).to.equal(303);
      expect(await sessionRows(user.id)).to.deep.equal([{ sign_in_method: `sso:${provider.id}`, second_factor: null }]);

      const other = await makeProvider(suite, { label: 'Autre' });
      await ctx.db('app_auth_accounts').insert({ user_id: user.id, provider: `sso:${other.id}`, account_id: 'subject-1' });
      const mark = await auditMark(ctx);
      const refused = await signInWith(suite, other.id);
      expect(refused.answer.status).to.equal(403);
      expect(textOf(refused.answer.text)).to.include('La connexion à ce compte se fait avec « Annuaire interne ».');
      expect(await sessionsOf(ctx, user.id)).to.equal(1);
      const [event] = await eventsSince(ctx, mark);
      expect(event).to.deep.include({ action: 'auth.sso_refused', target_id: String(user.id), details: { provider: other.id, reason: 'method_not_allowed' } });
    });

    it('refuses to delete a provider that a role requires', async () => {
      const { provider } = await ssoOnlyMember();
      const { app, clock } = suite;
      const admin = await makeUser(suite.ctx, { role: 'admin', email: 'root@example.com' });
      const client = new FormClient(app, clock);
      await client.submit('/auth/login', { email: admin.email, password: PASSWORD });
      const page = await client.get(`/admin/sign-in/${provider.id}`);
      const _csrf = hiddenField(page.text, '_csrf')!;
      const answer = await client.agent.delete(`/app/api/admin/sign-in/providers/${provider.id}`).set('X-CSRF-Token', _csrf).set('Accept', 'application/json');
      expect(answer.status).to.equal(409);
      expect(answer.body.code).to.equal('provider_in_sign_in_policy');
      expect(answer.body.error).to.include('«\u00a0staff\u00a0»');
      expect(await suite.ctx.db('app_auth_sso_providers').where({ id: provider.id })).to.have.length(1);
    });
  });

  describe('MFA asserted by the provider (`amr`, `acr`): a per-provider setting', () => {
    async function linkedWithTwoFactor(trust: boolean, acr: string[] = []) {
      const { ctx } = suite;
      const provider = await makeProvider(suite, { trust_mfa: trust, mfa_acr_values: acr });
      const user = await makeUser(ctx, { email: 'ada@example.org' });
      const { secret } = await enrolTwoFactor(ctx, { id: user.id, email: user.email });
      await ctx.db('app_auth_accounts').insert({ user_id: user.id, provider: `sso:${provider.id}`, account_id: 'subject-1' });
      return { provider, user, secret };
    }

    it('asks the site’s own code when the provider is not trusted, and records `method: sso` after the code step', async () => {
      const { ctx, clock } = suite;
      const { provider, user, secret } = await linkedWithTwoFactor(false);
      suite.idp.login = { amr: ['pwd', 'mfa'] };
      const mark = await auditMark(ctx);
      const { answer, client } = await signInWith(suite, provider.id);
      expect(answer.status).to.equal(303);
      expect(answer.headers.location).to.equal('/auth/2fa');
      expect(await allSessions(ctx)).to.equal(0);
      clock.advance(30_000);
      const code = await client.submit('/auth/2fa', { code: totpNow(ctx, secret) });
      expect(code.status, code.text).to.equal(303);
      const logins = (await eventsSince(ctx, mark)).filter((event) => event.action === 'auth.login');
      expect(logins.map((event) => event.details)).to.deep.equal([{ method: 'sso', provider: provider.id, second_factor: 'totp' }]);
      expect(await sessionRows(user.id)).to.deep.equal([{ sign_in_method: `sso:${provider.id}`, second_factor: 'totp' }]);
      const account = await client.get('/account');
      expect(textOf(account.text)).to.include('Annuaire + code');
    });

    it('skips the code when the trusted provider says `amr: mfa`, and records the provider as the second factor', async () => {
      const { ctx } = suite;
      const { provider, user } = await linkedWithTwoFactor(true);
      // Without MFA at the provider: the code is asked, even from a trusted provider.
      suite.idp.login = { amr: ['pwd'] };
      expect((await signInWith(suite, provider.id)).answer.headers.location).to.equal('/auth/2fa');
      suite.idp.login = { amr: ['pwd', 'mfa'] };
      const mark = await auditMark(ctx);
      const { answer } = await signInWith(suite, provider.id);
      expect(answer.status).to.equal(303);
      expect(answer.headers.location).to.equal('/account');
      const [login] = await eventsSince(ctx, mark);
      expect(login).to.deep.include({ action: 'auth.login', details: { method: 'sso', provider: provider.id, second_factor: 'provider' } });
      expect(await sessionRows(user.id)).to.deep.equal([{ sign_in_method: `sso:${provider.id}`, second_factor: 'provider' }]);
    });

    it('counts an `acr` the provider’s settings list, and no other', async () => {
      const { provider } = await linkedWithTwoFactor(true, ['urn:test:mfa']);
      suite.idp.login = { amr: ['pwd'], acr: 'urn:test:pwd' };
      expect((await signInWith(suite, provider.id)).answer.headers.location).to.equal('/auth/2fa');
      suite.idp.login = { amr: ['pwd'], acr: 'urn:test:mfa' };
      expect((await signInWith(suite, provider.id)).answer.headers.location).to.equal('/account');
    });

    it('meets a role’s two-step requirement for that session without a TOTP enrolment', async () => {
      const { ctx } = suite;
      const provider = await makeProvider(suite, { trust_mfa: true });
      const roleId = await makeRole(ctx, [], 'guarded');
      await ctx.db('app_auth_roles').where({ id: roleId }).update({ require_2fa: true });
      const user = await makeUser(ctx, { email: 'ada@example.org', role: 'guarded' });
      await ctx.db('app_auth_accounts').insert({ user_id: user.id, provider: `sso:${provider.id}`, account_id: 'subject-1' });
      // Without MFA at the provider: enrolment first, as after a password.
      suite.idp.login = { amr: ['pwd'] };
      const plain = await signInWith(suite, provider.id);
      expect(plain.answer.headers.location).to.equal('/account/2fa');
      expect((await plain.client.get('/account')).headers.location).to.equal('/account/2fa');
      suite.idp.login = { amr: ['pwd', 'mfa'] };
      const strong = await signInWith(suite, provider.id);
      expect(strong.answer.headers.location).to.equal('/account');
      expect((await strong.client.get('/account')).status).to.equal(200);
    });
  });

  it('tells the account «Compte lié à <fournisseur>» when a link is proved by its password, and records `method: sso`', async () => {
    const { ctx } = suite;
    const provider = await makeProvider(suite, { label: 'Annuaire' });
    const user = await makeUser(ctx, { email: 'ada@example.org' });
    const { answer, client } = await signInWith(suite, provider.id);
    expect(answer.headers.location).to.equal('/auth/sso/link');
    const mark = await auditMark(ctx);
    const proved = await client.submit('/auth/sso/link', { password: PASSWORD });
    expect(proved.status, proved.text).to.equal(303);
    const mail = await smtp.waitForMessage('ada@example.org');
    expect(mail.subject).to.equal('Compte lié à Annuaire — Site de test');
    expect(mail.text).to.include('«\u00a0Annuaire\u00a0»');
    const login = (await eventsSince(ctx, mark)).find((event) => event.action === 'auth.login');
    expect(login?.details).to.deep.equal({ method: 'sso', provider: provider.id });
    expect(await sessionRows(user.id)).to.deep.equal([{ sign_in_method: `sso:${provider.id}`, second_factor: null }]);
  });
});
