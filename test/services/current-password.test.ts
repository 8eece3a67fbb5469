// verifyCurrentPassword: the login-grade limit of every current-password check
// (per client address and per account), called by the profile use cases.
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { RateLimitedError, UserFacingError } from '../../lib/errors.js';
import type { Origin } from '../../lib/origin.js';
import { verifyCurrentPassword } from '../../services/current-password.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { PASSWORD, makeUser } from '../support/fixtures.js';

const BUDGET = 3;

/** A request from this client address (all the check reads of it). */
const from = (ip: string | undefined): Origin => ({ userId: null, name: null, ip: ip ?? null, userAgent: null, requestId: 'test-request' });

async function outcome(run: Promise<void>): Promise<unknown> {
  return run.then(
    () => 'ok',
    (error: unknown) => error,
  );
}

describe('verifyCurrentPassword (services/current-password.ts)', () => {
  let ctx: AppContext;
  before(() => {
    ctx = contextOf(createTestApp({ RATE_LIMIT_LOGIN: `${BUDGET}/15m` }));
  });
  beforeEach(() => resetData(ctx));

  it('accepts the right password and refuses a wrong one with the profile’s error', async () => {
    const user = await makeUser(ctx);
    expect(await outcome(verifyCurrentPassword(ctx, from('203.0.113.1'), user.id, PASSWORD))).to.equal('ok');
    const wrong = await outcome(verifyCurrentPassword(ctx, from('203.0.113.1'), user.id, 'not the password'));
    expect(wrong).to.be.instanceOf(UserFacingError);
    expect(wrong).to.include({ status: 400, code: 'current_password_wrong', message: 'Le mot de passe actuel est incorrect.' });
    expect((wrong as UserFacingError).details).to.deep.equal([{ field: 'current_password', message: 'Le mot de passe actuel est incorrect.' }]);
  });

  it(`refuses the ${BUDGET + 1}th check with 429 and Retry-After even with the right password, and checks nothing`, async () => {
    const user = await makeUser(ctx);
    for (let attempt = 1; attempt <= BUDGET; attempt++) {
      expect(await outcome(verifyCurrentPassword(ctx, from('203.0.113.1'), user.id, 'wrong guess')), `attempt ${attempt}`).to.be.instanceOf(UserFacingError);
    }
    let hashes = 0;
    const verify = ctx.hasher.verify.bind(ctx.hasher);
    ctx.hasher.verify = (...args) => {
      hashes++;
      return verify(...args);
    };
    try {
      const refused = await outcome(verifyCurrentPassword(ctx, from('203.0.113.1'), user.id, PASSWORD));
      expect(refused).to.be.instanceOf(RateLimitedError);
      expect(refused).to.include({ status: 429, code: 'rate_limited' });
      expect((refused as RateLimitedError).retryAfterSeconds).to.be.within(15 * 60 - 5, 15 * 60);
      expect((refused as RateLimitedError).message).to.equal('Trop de tentatives depuis cette adresse. Un nouvel essai sera possible dans 15 minutes.');
      expect(hashes).to.equal(0);
    } finally {
      ctx.hasher.verify = verify;
    }
  });

  it('still limits a second address through the per-account budget', async () => {
    const user = await makeUser(ctx);
    for (let attempt = 1; attempt <= BUDGET; attempt++) await outcome(verifyCurrentPassword(ctx, from('203.0.113.1'), user.id, 'wrong guess'));
    const elsewhere = await outcome(verifyCurrentPassword(ctx, from('198.51.100.7'), user.id, PASSWORD));
    expect(elsewhere).to.be.instanceOf(RateLimitedError);
    expect((elsewhere as RateLimitedError).message).to.equal('Trop de tentatives pour ce compte. Un nouvel essai sera possible dans 15 minutes.');
    // Another account from the first address is refused by that address's budget only.
    const other = await makeUser(ctx);
    expect(await outcome(verifyCurrentPassword(ctx, from('198.51.100.7'), other.id, PASSWORD))).to.equal('ok');
    expect(await outcome(verifyCurrentPassword(ctx, from('203.0.113.1'), other.id, PASSWORD))).to.be.instanceOf(RateLimitedError);
  });

  it('keeps its counters apart from the login form’s, and applies the account budget when no address can be read', async () => {
    const user = await makeUser(ctx);
    for (let attempt = 1; attempt <= BUDGET; attempt++) await outcome(verifyCurrentPassword(ctx, from(undefined), user.id, 'wrong guess'));
    expect(await outcome(verifyCurrentPassword(ctx, from(undefined), user.id, PASSWORD))).to.be.instanceOf(RateLimitedError);
    expect(await ctx.db('app_auth_rate_limits').orderBy('key').pluck('key')).to.deep.equal([`current_password_account:${user.id}`]);
    await ctx.db('app_auth_rate_limits').delete();
    await outcome(verifyCurrentPassword(ctx, from('203.0.113.1'), user.id, PASSWORD));
    expect(await ctx.db('app_auth_rate_limits').orderBy('key').pluck('key')).to.deep.equal([
      `current_password:203.0.113.1`,
      `current_password_account:${user.id}`,
    ]);
  });

  it('opens the budget again once the window has passed', async () => {
    const user = await makeUser(ctx);
    const start = Date.now();
    ctx.clock.set(() => start);
    for (let attempt = 0; attempt <= BUDGET; attempt++) await outcome(verifyCurrentPassword(ctx, from('203.0.113.1'), user.id, 'wrong guess'));
    ctx.clock.set(() => start + 3 * 60_000);
    const later = await outcome(verifyCurrentPassword(ctx, from('203.0.113.1'), user.id, PASSWORD));
    expect((later as RateLimitedError).message).to.equal('Trop de tentatives depuis cette adresse. Un nouvel essai sera possible dans 12 minutes.');
    ctx.clock.set(() => start + 15 * 60_000);
    expect(await outcome(verifyCurrentPassword(ctx, from('203.0.113.1'), user.id, PASSWORD))).to.equal('ok');
  });
});
