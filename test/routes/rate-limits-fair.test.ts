// Fair budgets: a submission the input's own rules refuse (a typo: nothing hashed,
// nothing sent) gives its hit back on the first-run and sign-up forms; anti-bot
// refusals, accepted submissions and anything refused past the input's rules keep it;
// login counts every attempt.
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { createFirstAdmin } from '../../models/auth/registration.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { FormClient, strongPassword, useFakeClock } from '../support/form-client.js';

async function hitsOf(ctx: AppContext, operation: string): Promise<number> {
  const row = await ctx.db('app_auth_rate_limits').where('key', 'like', `${operation}:%`).first('hits');
  return row ? Number(row.hits) : 0;
}

describe('fair rate limits on the public forms', () => {
  const clock = useFakeClock();

  describe('first run, with the default budget (5 an hour)', () => {
    let app: App;
    let ctx: AppContext;
    before(() => {
      app = createTestApp();
      ctx = contextOf(app);
    });
    beforeEach(() => resetData(ctx));

    it('accepts a valid first-run submission after four with a too-short password, and counts only the accepted one', async () => {
      const client = new FormClient(app, clock);
      for (let attempt = 1; attempt <= 4; attempt++) {
        const refused = await client.submit('/auth', { name: 'Alice', email: 'alice@example.com', password: 'short' });
        expect(refused.status, `attempt ${attempt}`).to.equal(400);
        expect(refused.text).to.include('au moins 8 caractères');
      }
      expect(await hitsOf(ctx, 'register')).to.equal(0);
      expect(await ctx.db('app_auth_users').count({ n: '*' }).first()).to.deep.equal({ n: 0 });

      const accepted = await client.submit('/auth', { name: 'Alice', email: 'alice@example.com', password: strongPassword });
      expect(accepted.status).to.equal(303);
      expect(accepted.headers.location).to.equal('/admin');
      const users = await ctx.db('app_auth_users').select('email');
      expect(users.map((user) => user.email)).to.deep.equal(['alice@example.com']);
      expect(await hitsOf(ctx, 'register')).to.equal(1);
    });

    it('gives back the hit of an address joi refuses, as JSON too', async () => {
      const client = new FormClient(app, clock);
      const refused = await client.submit('/auth', { name: 'Alice', email: 'not an address', password: strongPassword }, { json: true });
      expect(refused.status).to.equal(400);
      expect(refused.body.code).to.equal('validation_error');
      expect(await hitsOf(ctx, 'register')).to.equal(0);
    });
  });

  describe('sign-up and the other forms, with a budget of 2', () => {
    let app: App;
    let ctx: AppContext;
    before(() => {
      app = createTestApp({ RATE_LIMIT_REGISTER: '2/1h', RATE_LIMIT_LOGIN: '2/15m', RATE_LIMIT_FORGOT_PASSWORD: '2/1h', APP_AUTH_REGISTRATION: 'true' });
      ctx = contextOf(app);
    });
    beforeEach(async () => {
      await resetData(ctx);
      await createFirstAdmin(ctx, { email: 'admin@example.com', password: strongPassword, name: 'Admin' });
    });
    afterEach(() => ctx.background.settle());

    it('lets any number of typos through the sign-up budget, then accepts the corrected submission', async () => {
      const client = new FormClient(app, clock);
      for (const fields of [
        { name: 'Bob', email: 'bob@example.com', password: 'short' },
        { name: 'Bob', email: 'bob@', password: strongPassword },
        { name: '', email: 'bob@example.com', password: strongPassword },
        { name: 'Bob', email: 'bob@example.com', password: 'x'.repeat(80) },
      ]) {
        expect((await client.submit('/auth/register', fields)).status).to.equal(400);
      }
      expect(await hitsOf(ctx, 'register')).to.equal(0);
      const accepted = await client.submit('/auth/register', { name: 'Bob', email: 'bob@example.com', password: strongPassword });
      expect(accepted.status).to.equal(200);
      expect(await ctx.db('app_auth_users').where({ email: 'bob@example.com' }).first()).to.not.equal(undefined);
      expect(await hitsOf(ctx, 'register')).to.equal(1);
    });

    it('counts anti-bot refusals: a form sent too fast spends the budget', async () => {
      const client = new FormClient(app, clock);
      for (let attempt = 1; attempt <= 2; attempt++) {
        const refused = await client.submit('/auth/register', { name: 'Bob', email: 'bob@example.com', password: 'short' }, { waitMs: 100 });
        expect(refused.status).to.equal(400);
        expect(refused.text).to.include('Le formulaire est parti trop vite');
      }
      expect(await hitsOf(ctx, 'register')).to.equal(2);
      const limited = await client.submit('/auth/register', { name: 'Bob', email: 'bob@example.com', password: strongPassword });
      expect(limited.status).to.equal(429);
      expect(await ctx.db('app_auth_users').where({ email: 'bob@example.com' }).first()).to.equal(undefined);
    });

    it('counts a taken address (hashed, checked against the accounts)', async () => {
      const client = new FormClient(app, clock);
      const taken = await client.submit('/auth/register', { name: 'Copy', email: 'admin@example.com', password: strongPassword });
      expect(taken.status).to.not.equal(429);
      expect(await hitsOf(ctx, 'register')).to.equal(1);
    });

    it('still refuses a typo once the budget is spent, and keeps the count', async () => {
      const client = new FormClient(app, clock);
      await client.submit('/auth/register', { name: 'B', email: 'b@example.com', password: strongPassword });
      await client.submit('/auth/register', { name: 'C', email: 'c@example.com', password: strongPassword });
      const limited = await client.submit('/auth/register', { name: 'D', email: 'd@example.com', password: 'short' });
      expect(limited.status).to.equal(429);
      expect(limited.text).to.include('Un nouvel essai sera possible dans 1 heure.');
      expect(Number(limited.headers['retry-after'])).to.be.within(3600 - 30, 3600);
      expect(await hitsOf(ctx, 'register')).to.equal(3);
    });

    it('counts every login attempt, invalid input included', async () => {
      const client = new FormClient(app, clock);
      const invalid = await client.submit('/auth/login', { email: 'not an address', password: 'x' });
      expect(invalid.status).to.equal(400);
      expect(await hitsOf(ctx, 'login')).to.equal(1);
      await client.submit('/auth/login', { email: 'admin@example.com', password: 'wrong password' });
      const limited = await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword });
      expect(limited.status).to.equal(429);
      expect(await hitsOf(ctx, 'login')).to.equal(3);
    });

    it('gives back a mistyped address on the forgotten-password form: nothing is sent', async () => {
      const client = new FormClient(app, clock);
      for (let attempt = 1; attempt <= 3; attempt++) expect((await client.submit('/auth/forgot', { email: 'nobody@' })).status).to.equal(400);
      expect(await hitsOf(ctx, 'forgot_password')).to.equal(0);
      expect((await client.submit('/auth/forgot', { email: 'nobody@example.com' })).status).to.equal(200);
      expect(await hitsOf(ctx, 'forgot_password')).to.equal(1);
    });
  });
});
