import { expect } from 'chai';
import { linkAccount } from '../../models/auth/linked-accounts.js';
import { ssoMessages } from '../../models/auth/messages.js';
import { auditMark, eventsSince } from '../audit/helpers.js';
import { textOf } from '../support/admin-client.js';
import { FormClient } from '../support/form-client.js';
import { countStatements } from '../support/statements.js';
import { walkProvider } from './idp.js';
import { makeUser } from '../support/fixtures.js';
import { makeProvider, sessionsOf, signInWith, useSsoSuite } from './helpers.js';

describe('GET /auth/sso/:provider and its callback (a real OpenID Connect provider)', () => {
  const suite = useSsoSuite();

  it('signs a linked account in: a session like a password login, auth.login with the method sso, 303 to the landing page', async () => {
    const { ctx } = suite;
    const provider = await makeProvider(suite);
    const user = await makeUser(ctx, { email: 'ada@example.org', permissions: ['admin.access'] });
    await linkAccount(ctx, user.id, provider.id, 'subject-1');
    const mark = await auditMark(ctx);

    const { answer, start, client } = await signInWith(suite, provider.id);

    const authorize = new URL(start.headers.location);
    expect(authorize.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(authorize.searchParams.get('state')).to.have.length.above(20);
    expect(authorize.searchParams.get('nonce')).to.have.length.above(20);
    expect(authorize.searchParams.get('redirect_uri')).to.equal(`http://site.test/auth/sso/${provider.id}/callback`);
    expect(answer.status, answer.text).to.equal(303);
    expect(answer.headers.location).to.equal('/admin');
    expect(String(answer.headers['set-cookie'])).to.match(/site\.sid=/);
    expect(await sessionsOf(ctx, user.id)).to.equal(1);
    const events = await eventsSince(ctx, mark);
    expect(events.map((event) => event.action)).to.deep.equal(['auth.login']);
    expect(events[0].details).to.deep.include({ method: 'sso', provider: provider.id });
    expect(events[0].target_id).to.equal(String(user.id));
    const admin = await client.get('/admin');
    expect(admin.status).to.equal(200);
  });

  it('costs 1 statement for the start and 3 for the callback of a linked account once discovery is kept', async () => {
    const { ctx } = suite;
    const provider = await makeProvider(suite);
    const user = await makeUser(ctx, { email: 'ada@example.org' });
    await linkAccount(ctx, user.id, provider.id, 'subject-1');
    await signInWith(suite, provider.id);
    const client = new FormClient(suite.app, suite.clock);
    const start = await countStatements(ctx, () => client.get(`/auth/sso/${provider.id}`));
    const callbackPath = await walkProvider(start.result.headers.location);
    const callback = await countStatements(ctx, () => client.get(callbackPath));
    expect(callback.result.status).to.equal(303);
    // The start: the provider's row (its secret is read by the first discovery only, then kept).
    expect(start.count, start.sql.join('\n')).to.equal(1);
    // The callback: the provider, the linked account with its permissions, the session with its auth.login.
    expect(callback.count, callback.sql.join('\n')).to.equal(3);
  });

  it('lands on the same-site `next` the sign-in started with', async () => {
    const { ctx } = suite;
    const provider = await makeProvider(suite);
    const user = await makeUser(ctx, { email: 'ada@example.org' });
    await linkAccount(ctx, user.id, provider.id, 'subject-1');
    const client = new FormClient(suite.app, suite.clock);
    const start = await client.get(`/auth/sso/${provider.id}?next=${encodeURIComponent('/account/2fa')}`);
    const answer = await client.get(await walkProvider(start.headers.location));
    expect(answer.status).to.equal(303);
    expect(answer.headers.location).to.equal('/account/2fa');
    // Another site is never a landing: the usual one instead.
    const offsite = await client.get(`/auth/sso/${provider.id}?next=${encodeURIComponent('//evil.example')}`);
    const landed = await client.get(await walkProvider(offsite.headers.location));
    expect(landed.headers.location).to.equal('/account');
  });

  it('refuses a linked account that is suspended: no session, an audit event naming it', async () => {
    const { ctx } = suite;
    const provider = await makeProvider(suite);
    const user = await makeUser(ctx, { email: 'ada@example.org' });
    await linkAccount(ctx, user.id, provider.id, 'subject-1');
    await ctx.db('app_auth_users').where({ id: user.id }).update({ suspended_at: new Date(), suspended_reason: 'test' });
    const mark = await auditMark(ctx);
    const { answer } = await signInWith(suite, provider.id);
    expect(answer.status).to.equal(403);
    expect(textOf(answer.text)).to.include(ssoMessages.accountSuspended);
    expect(await sessionsOf(ctx, user.id)).to.equal(0);
    const events = await eventsSince(ctx, mark);
    expect(events.map((event) => [event.action, event.details.reason, event.target_id])).to.deep.equal([
      ['auth.sso_refused', 'account_suspended', String(user.id)],
    ]);
  });
});
