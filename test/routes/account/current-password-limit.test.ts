// Every current-password check of the profile, on the API and on the profile page at
// both its mounts, spends the login-grade budget of services/current-password.ts:
// after RATE_LIMIT_LOGIN attempts even the right password is refused (429) and
// nothing changes.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { checkPassword } from '../../../models/auth/credentials.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { PASSWORD, caller, logIn } from '../../support/fixtures.js';
import { AdminClient, textOf } from '../../support/admin-client.js';

const BUDGET = 3;
const NEW_PASSWORD = 'a brand new password';

describe('current-password checks are limited like logins (RATE_LIMIT_LOGIN)', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp({ RATE_LIMIT_LOGIN: `${BUDGET}/15m` });
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  async function passwordUnchanged(userId: number): Promise<void> {
    expect(await checkPassword(ctx, userId, PASSWORD)).to.equal(true);
    expect(await checkPassword(ctx, userId, NEW_PASSWORD)).to.equal(false);
  }

  it(`POST /app/api/users/profile/password: the ${BUDGET + 1}th attempt is 429 with Retry-After even with the right password; nothing changes`, async () => {
    const me = await caller(ctx);
    const other = await logIn(ctx, me);
    for (let attempt = 1; attempt <= BUDGET; attempt++) {
      const wrong = await request(app)
        .post('/app/api/users/profile/password')
        .set('Cookie', me.cookie)
        .send({ current_password: `wrong guess ${attempt}`, new_password: NEW_PASSWORD });
      expect(wrong.status, `attempt ${attempt}`).to.equal(400);
      expect(wrong.body.code).to.equal('current_password_wrong');
    }
    const refused = await request(app)
      .post('/app/api/users/profile/password')
      .set('Cookie', me.cookie)
      .send({ current_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(refused.status).to.equal(429);
    expect(refused.body.code).to.equal('rate_limited');
    expect(Number(refused.headers['retry-after'])).to.be.within(15 * 60 - 5, 15 * 60);
    await passwordUnchanged(me.id);
    expect(await ctx.db('app_auth_sessions').where({ sid: other.sid })).to.have.length(1);
  });

  it('POST /app/api/users/profile/email: 429 after the budget, and no confirmation link is issued', async () => {
    const me = await caller(ctx);
    for (let attempt = 1; attempt <= BUDGET; attempt++) {
      const wrong = await request(app)
        .post('/app/api/users/profile/email')
        .set('Cookie', me.cookie)
        .send({ email: 'new@example.com', current_password: 'wrong' });
      expect(wrong.status).to.equal(400);
    }
    const refused = await request(app)
      .post('/app/api/users/profile/email')
      .set('Cookie', me.cookie)
      .send({ email: 'new@example.com', current_password: PASSWORD });
    expect(refused.status).to.equal(429);
    expect(await ctx.db('app_auth_verifications').where({ user_id: me.id })).to.have.length(0);
  });

  it('POST /account/password: 429 after the budget, said on the page, and the password unchanged', async () => {
    const client = await AdminClient.as(app);
    for (let attempt = 1; attempt <= BUDGET; attempt++) {
      const wrong = await client.post('/account/password', { current_password: 'nope nope', new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD });
      expect(wrong.status, `attempt ${attempt}`).to.equal(400);
    }
    const refused = await client.post('/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD });
    expect(refused.status).to.equal(429);
    expect(refused.headers['retry-after']).to.match(/^\d+$/);
    expect(textOf(refused.text)).to.include('Un nouvel essai sera possible dans 15 minutes.');
    await passwordUnchanged(client.user.id);
  });

  it('counts the API, /account and /admin/profile against one budget per account (/admin/profile/email refused after it)', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    const api = await request(app)
      .post('/app/api/users/profile/email')
      .set('Cookie', client.user.cookie)
      .send({ email: 'new@example.com', current_password: 'wrong' });
    expect(api.status).to.equal(400);
    expect((await client.post('/account/email', { email: 'new@example.com', current_password: 'wrong' })).status).to.equal(400);
    expect(
      (
        await client.post(
          '/admin/profile/password',
          { current_password: 'wrong', new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD },
          '/admin/profile',
        )
      ).status,
    ).to.equal(400);
    const refused = await client.post('/admin/profile/email', { email: 'new@example.com', current_password: PASSWORD }, '/admin/profile');
    expect(refused.status).to.equal(429);
    expect(textOf(refused.text)).to.include('Trop de tentatives');
    expect(await ctx.db('app_auth_verifications').where({ user_id: client.user.id })).to.have.length(0);
    expect((await ctx.db('app_auth_users').where({ id: client.user.id }).first())!.email).to.equal(client.user.email);
  });
});
