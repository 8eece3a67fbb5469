import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { linkAccount } from '../../models/auth/linked-accounts.js';
import { ssoMessages } from '../../models/auth/messages.js';
import { updateSsoProvider } from '../../models/auth/sso-providers.js';
import { textOf } from '../support/admin-client.js';
import { makeUser } from '../support/fixtures.js';
import { FormClient } from '../support/form-client.js';
import { auditMark, eventsSince } from '../audit/helpers.js';
import { walkProvider } from './idp.js';
import { allSessions, makeProvider, signInWith, useSsoSuite, type SsoSuite } from './helpers.js';

/** The refusal's page, no session anywhere, and exactly one `auth.sso_refused` event with this reason. */
async function expectRefused(suite: SsoSuite, mark: number, answer: request.Response, status: number, reason: string, message: string): Promise<void> {
  expect(answer.status, answer.text).to.equal(status);
  expect(answer.headers['content-type']).to.match(/html/);
  expect(textOf(answer.text)).to.include(message);
  expect(String(answer.headers['set-cookie'] ?? '')).not.to.match(/site\.sid=[^;]/);
  expect(await allSessions(suite.ctx)).to.equal(0);
  const events = await eventsSince(suite.ctx, mark);
  expect(events.map((event) => event.action)).to.deep.equal(['auth.sso_refused']);
  expect(events[0].details).to.deep.include({ reason });
}

describe('Single sign-on refusals (a real OpenID Connect provider)', () => {
  const suite = useSsoSuite();

  it('refuses an answer whose state is not the one this browser started with', async () => {
    const provider = await makeProvider(suite);
    const client = new FormClient(suite.app, suite.clock);
    const start = await client.get(`/auth/sso/${provider.id}`);
    const callback = new URL(await walkProvider(start.headers.location), 'http://site.test');
    callback.searchParams.set('state', 'forged-state-value');
    const mark = await auditMark(suite.ctx);
    const answer = await client.get(callback.pathname + callback.search);
    await expectRefused(suite, mark, answer, 400, 'state_mismatch', ssoMessages.stateMismatch);
  });

  it('refuses a callback without the flow of this browser (another browser, or expired)', async () => {
    const provider = await makeProvider(suite);
    const client = new FormClient(suite.app, suite.clock);
    const start = await client.get(`/auth/sso/${provider.id}`);
    const callback = await walkProvider(start.headers.location);
    const mark = await auditMark(suite.ctx);
    const answer = await request(suite.app as Express).get(callback);
    await expectRefused(suite, mark, answer, 400, 'flow_missing', ssoMessages.flowMissing);
  });

  it('refuses a replayed code, even with the flow cookie copied: the provider answers invalid_grant', async () => {
    const { ctx } = suite;
    const provider = await makeProvider(suite);
    const user = await makeUser(ctx, { email: 'ada@example.org' });
    await linkAccount(ctx, user.id, provider.id, 'subject-1');
    const client = new FormClient(suite.app, suite.clock);
    const start = await client.get(`/auth/sso/${provider.id}`);
    const flowCookie = String(start.headers['set-cookie']).match(/site\.sso=[^;]+/)![0];
    const callback = await walkProvider(start.headers.location);
    const first = await client.get(callback);
    expect(first.status).to.equal(303);
    await ctx.db('app_auth_sessions').delete();
    const mark = await auditMark(ctx);
    const replay = await request(suite.app as Express)
      .get(callback)
      .set('Cookie', flowCookie);
    await expectRefused(suite, mark, replay, 400, 'token_rejected', ssoMessages.tokenRejected);
  });

  for (const [what, change] of [
    ['a wrong nonce', (claims: Record<string, unknown>) => void (claims.nonce = 'another-nonce')],
    ['a wrong audience', (claims: Record<string, unknown>) => void (claims.aud = 'another-client')],
    [
      'an expired ID token',
      (claims: Record<string, unknown>) => {
        const now = Math.floor(Date.now() / 1000);
        claims.iat = now - 7200;
        claims.exp = now - 3600;
      },
    ],
  ] as const) {
    it(`refuses an ID token with ${what} (signed by the provider's own key)`, async () => {
      const { ctx } = suite;
      const provider = await makeProvider(suite);
      const user = await makeUser(ctx, { email: 'ada@example.org' });
      await linkAccount(ctx, user.id, provider.id, 'subject-1');
      suite.idp.tamper = change;
      const mark = await auditMark(ctx);
      const { answer } = await signInWith(suite, provider.id);
      await expectRefused(suite, mark, answer, 400, 'token_rejected', ssoMessages.tokenRejected);
    });
  }

  it('refuses an unknown subject whose address the provider has not verified', async () => {
    const provider = await makeProvider(suite, { allow_signup: true });
    await makeUser(suite.ctx, { email: 'ada@example.org' });
    suite.idp.subject = { sub: 'subject-2', email: 'ada@example.org', email_verified: false, name: 'Ada' };
    const mark = await auditMark(suite.ctx);
    const { answer } = await signInWith(suite, provider.id);
    await expectRefused(suite, mark, answer, 403, 'email_unverified', ssoMessages.emailMissing);
    expect(await suite.ctx.db('app_auth_accounts').where('provider', 'like', 'sso:%').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('refuses a disabled provider, at the start and at the callback', async () => {
    const provider = await makeProvider(suite);
    const client = new FormClient(suite.app, suite.clock);
    const start = await client.get(`/auth/sso/${provider.id}`);
    const callback = await walkProvider(start.headers.location);
    await updateSsoProvider(suite.ctx, provider.id, { enabled: false });
    let mark = await auditMark(suite.ctx);
    await expectRefused(suite, mark, await client.get(callback), 404, 'provider_unavailable', ssoMessages.providerUnavailable);
    mark = await auditMark(suite.ctx);
    await expectRefused(suite, mark, await client.get(`/auth/sso/${provider.id}`), 404, 'provider_unavailable', ssoMessages.providerUnavailable);
    const login = await client.get('/auth/login');
    expect(login.text).not.to.include(`/auth/sso/${provider.id}`);
  });

  it('refuses with a clear page when the provider does not answer', async () => {
    const provider = await makeProvider(suite, { issuer: 'http://127.0.0.1:9' });
    const mark = await auditMark(suite.ctx);
    const answer = await new FormClient(suite.app, suite.clock).get(`/auth/sso/${provider.id}`);
    await expectRefused(suite, mark, answer, 503, 'provider_down', ssoMessages.providerDown);
  });

  it('refuses an account created by the provider when the provider is told no (access_denied)', async () => {
    const provider = await makeProvider(suite);
    const client = new FormClient(suite.app, suite.clock);
    const start = await client.get(`/auth/sso/${provider.id}`);
    const state = new URL(start.headers.location).searchParams.get('state')!;
    const mark = await auditMark(suite.ctx);
    const answer = await client.get(`/auth/sso/${provider.id}/callback?error=access_denied&state=${state}`);
    await expectRefused(suite, mark, answer, 403, 'provider_refused', ssoMessages.providerRefused);
  });
});
