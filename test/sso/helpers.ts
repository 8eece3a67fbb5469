// Shared by the single sign-on tests: an app and a real provider for the suite, a
// provider row pointing at it, and a browser-like sign-in through both.
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { insertSsoProvider, type SsoProvider, type SsoProviderInput } from '../../models/auth/sso-providers.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { FormClient, useFakeClock, type FakeClock } from '../support/form-client.js';
import { CLIENT_ID, CLIENT_SECRET, startTestIdp, walkProvider, type TestIdp } from './idp.js';

const SITE = 'http://site.test';

export interface SsoSuite {
  app: App;
  ctx: AppContext;
  idp: TestIdp;
  clock: FakeClock;
}

/** One app and one provider for the suite; data emptied before each test, the subject back to Ada. */
export function useSsoSuite(env: () => Record<string, string | undefined> = () => ({})): SsoSuite {
  const suite = {} as SsoSuite;
  suite.clock = useFakeClock();
  before(async () => {
    suite.app = createTestApp({ BASE_URL: SITE, ...env() });
    suite.ctx = contextOf(suite.app);
    // The provider accepts the callbacks of the first providers the tests create.
    suite.idp = await startTestIdp(Array.from({ length: 400 }, (_, index) => `${SITE}/auth/sso/${index + 1}/callback`));
  });
  after(async () => {
    await suite.idp.close();
    await closeTestApp(suite.app);
  });
  beforeEach(async () => {
    await resetData(suite.ctx);
    suite.idp.subject = { sub: 'subject-1', email: 'ada@example.org', email_verified: true, name: 'Ada' };
    suite.idp.tamper = undefined;
    suite.idp.login = undefined;
  });
  return suite;
}

export function providerInput(idp: TestIdp, changes: Partial<SsoProviderInput> = {}): SsoProviderInput {
  return { label: 'Annuaire', issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET, scopes: ['openid', 'email', 'profile'], ...changes };
}

export function makeProvider(suite: SsoSuite, changes: Partial<SsoProviderInput> = {}): Promise<SsoProvider> {
  return insertSsoProvider(suite.ctx, providerInput(suite.idp, changes));
}

/** The start (303 to the provider), the provider's redirects, and the callback's answer. */
export async function signInWith(suite: SsoSuite, providerId: number, client = new FormClient(suite.app, suite.clock)) {
  const start = await client.get(`/auth/sso/${providerId}`);
  expect(start.status, start.text).to.equal(303);
  expect(start.headers.location).to.match(new RegExp(`^${suite.idp.issuer}/auth\\?`));
  const callback = await walkProvider(start.headers.location);
  const answer = await client.get(callback);
  return { client, callback, answer, start };
}

export async function sessionsOf(ctx: AppContext, userId: number): Promise<number> {
  const row = await ctx.db('app_auth_sessions').where({ user_id: userId }).count<{ count: string }[]>({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

export async function allSessions(ctx: AppContext): Promise<number> {
  const row = await ctx.db('app_auth_sessions').whereNotNull('user_id').count<{ count: string }[]>({ count: '*' }).first();
  return Number(row?.count ?? 0);
}
