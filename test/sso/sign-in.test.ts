import { expect } from 'chai';
import { linkAccount } from '../../models/auth/linked-accounts.js';
import { auditMark, eventsSince } from '../audit/helpers.js';
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
});
