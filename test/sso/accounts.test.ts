import { expect } from 'chai';
import { ssoMessages } from '../../models/auth/messages.js';
import { findUserById } from '../../models/auth/users.js';
import { textOf } from '../support/admin-client.js';
import { makeRole, makeUser, PASSWORD } from '../support/fixtures.js';
import { auditMark, eventsSince } from '../audit/helpers.js';
import { allSessions, makeProvider, sessionsOf, signInWith, useSsoSuite } from './helpers.js';

describe('Single sign-on: first sign-in and linked accounts', () => {
  const suite = useSsoSuite();

  it('creates an account at a first sign-in when the provider allows it and the domain is allowed', async () => {
    const { ctx } = suite;
    await makeRole(ctx, ['admin.access'], 'staff');
    const provider = await makeProvider(suite, { allow_signup: true, allowed_domains: ['Example.org'], signup_role: 'staff' });
    const mark = await auditMark(ctx);
    const { answer, client } = await signInWith(suite, provider.id);
    expect(answer.status, answer.text).to.equal(303);
    // The provider's role for new accounts: this one opens the administration.
    expect(answer.headers.location).to.equal('/admin');
    const user = (await ctx.db('app_auth_users').where({ email: 'ada@example.org' }).first())!;
    expect(user).to.include({ name: 'Ada', email_verified: true });
    expect((await findUserById(ctx, user.id))!.role).to.equal('staff');
    expect(await ctx.db('app_auth_accounts').where({ user_id: user.id }).select('provider', 'account_id', 'password_hash')).to.deep.equal([
      { provider: `sso:${provider.id}`, account_id: 'subject-1', password_hash: null },
    ]);
    expect(await sessionsOf(ctx, user.id)).to.equal(1);
    // Linked to a provider, it is no invitation waiting for its password.
    expect((await findUserById(ctx, user.id))!.invitation).to.equal(null);
    expect((await eventsSince(ctx, mark)).map((event) => event.action)).to.deep.equal(['auth.sso_account_created', 'auth.login']);
    const account = await client.get('/account');
    expect(account.status).to.equal(200);
    expect(textOf(account.text)).to.include('Annuaire');
    // The next sign-in finds the same account by its subject, whatever its address says now.
    suite.idp.subject = { ...suite.idp.subject, email: 'renamed@example.org' };
    const again = await signInWith(suite, provider.id);
    expect(again.answer.status).to.equal(303);
    expect(await ctx.db('app_auth_users').count({ n: '*' })).to.deep.equal([{ n: 1 }]);
  });

  it('refuses to create an account of another domain', async () => {
    const { ctx } = suite;
    const provider = await makeProvider(suite, { allow_signup: true, allowed_domains: ['example.com'] });
    const mark = await auditMark(ctx);
    const { answer } = await signInWith(suite, provider.id);
    expect(answer.status).to.equal(403);
    expect(textOf(answer.text)).to.include(ssoMessages.domainRefused);
    expect(await ctx.db('app_auth_users').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    expect(await allSessions(ctx)).to.equal(0);
    const events = await eventsSince(ctx, mark);
    expect(events.map((event) => [event.action, event.details.reason])).to.deep.equal([['auth.sso_refused', 'domain_refused']]);
  });

  it('refuses to create an account when the provider does not allow it', async () => {
    const { ctx } = suite;
    const provider = await makeProvider(suite, { allow_signup: false });
    const mark = await auditMark(ctx);
    const { answer } = await signInWith(suite, provider.id);
    expect(answer.status).to.equal(403);
    expect(textOf(answer.text)).to.include(ssoMessages.signupClosed);
    expect(await ctx.db('app_auth_users').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    expect(await allSessions(ctx)).to.equal(0);
    expect((await eventsSince(ctx, mark)).map((event) => [event.action, event.details.reason])).to.deep.equal([['auth.sso_refused', 'signup_closed']]);
  });

  it('never links an existing account silently: its password proves it first, then it is linked and signed in', async () => {
    const { ctx } = suite;
    const provider = await makeProvider(suite, { allow_signup: true });
    const user = await makeUser(ctx, { email: 'ada@example.org' });
    const mark = await auditMark(ctx);
    const { answer, client } = await signInWith(suite, provider.id);
    expect(answer.status).to.equal(303);
    expect(answer.headers.location).to.equal('/auth/sso/link');
    expect(await ctx.db('app_auth_accounts').where({ user_id: user.id }).pluck('provider')).to.deep.equal(['credential']);
    expect(await allSessions(ctx)).to.equal(0);

    const page = await client.get('/auth/sso/link');
    expect(page.status).to.equal(200);
    expect(textOf(page.text)).to.include('ada@example.org').and.include('Annuaire');

    const wrong = await client.submit('/auth/sso/link', { password: 'not the password' });
    expect(wrong.status).to.equal(401);
    expect(await ctx.db('app_auth_accounts').where({ user_id: user.id }).pluck('provider')).to.deep.equal(['credential']);
    expect(await allSessions(ctx)).to.equal(0);

    const right = await client.submit('/auth/sso/link', { password: PASSWORD });
    expect(right.status, right.text).to.equal(303);
    expect(right.headers.location).to.equal('/account');
    expect(await ctx.db('app_auth_accounts').where({ user_id: user.id }).orderBy('provider').pluck('provider')).to.deep.equal([
      'credential',
      `sso:${provider.id}`,
    ]);
    expect(await sessionsOf(ctx, user.id)).to.equal(1);
    const actions = (await eventsSince(ctx, mark)).map((event) => event.action);
    expect(actions).to.deep.equal(['auth.sso_link_requested', 'auth.login_failed', 'auth.sso_linked', 'auth.login']);
    // Used up: the page now says the request is gone.
    const after = await client.get('/auth/sso/link');
    expect(textOf(after.text)).to.include(ssoMessages.linkGone);
  });

  it('asks the second step after a provider that does not assert MFA, for an account with two-step verification', async () => {
    const { ctx } = suite;
    const provider = await makeProvider(suite);
    const user = await makeUser(ctx, { email: 'ada@example.org' });
    await ctx.db('app_auth_two_factor').insert({ user_id: user.id, secret: 'v1.x', enabled_at: new Date() });
    await ctx.db('app_auth_accounts').insert({ user_id: user.id, provider: `sso:${provider.id}`, account_id: 'subject-1' });
    const { answer } = await signInWith(suite, provider.id);
    expect(answer.status).to.equal(303);
    expect(answer.headers.location).to.equal('/auth/2fa');
    expect(await allSessions(ctx)).to.equal(0);
    expect(await ctx.db('app_auth_pending_logins').where({ user_id: user.id }).count({ n: '*' })).to.deep.equal([{ n: 1 }]);

    // The provider's ID token says more than one factor was used (RFC 8176 `mfa`), and the
    // site trusts this provider to say so (test/sso/policy.test.ts: not without the setting).
    await ctx.db('app_auth_sso_providers').where({ id: provider.id }).update({ trust_mfa: true });
    suite.idp.tamper = (claims) => void (claims.amr = ['pwd', 'mfa']);
    const asserted = await signInWith(suite, provider.id);
    expect(asserted.answer.status).to.equal(303);
    expect(asserted.answer.headers.location).to.equal('/account');
    expect(await sessionsOf(ctx, user.id)).to.equal(1);
  });
});
