// Rate-limit answers say how long to wait, from the window's real reset time, and carry
// Retry-After: on the /auth forms (HTML and JSON) and on the API.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { waitText } from '../../../lib/rate-limit-refusal.js';
import { createFirstAdmin } from '../../../models/auth/registration.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { caller } from '../../support/fixtures.js';
import { FormClient, strongPassword, useFakeClock } from '../../support/form-client.js';

const wait = (text: string) => `Trop de tentatives depuis cette adresse. Un nouvel essai sera possible dans ${text}.`;

describe('rate-limit answers: how long to wait', () => {
  let app: App;
  let ctx: AppContext;
  const clock = useFakeClock();
  before(() => {
    app = createTestApp({ RATE_LIMIT_LOGIN: '1/15m', RATE_LIMIT_FORGOT_PASSWORD: '1/1h', RATE_LIMIT_REGISTER: '1/90m', RATE_LIMIT_API: '1/2h' });
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    await createFirstAdmin(ctx, { email: 'admin@example.com', password: strongPassword, name: 'Admin' });
  });
  afterEach(() => ctx.background.settle());

  it('writes the wait in minutes or hours, rounded up', () => {
    expect([1, 59, 60, 61, 12 * 60, 3599, 3600, 3601, 5400, 7200, 86_400].map(waitText)).to.deep.equal([
      '1 minute',
      '1 minute',
      '1 minute',
      '2 minutes',
      '12 minutes',
      '1 heure',
      '1 heure',
      '1 heure et 1 minute',
      '1 heure et 30 minutes',
      '2 heures',
      '24 heures',
    ]);
  });

  it('counts down from the window’s reset time on a form, with Retry-After (budget of 1)', async () => {
    const client = new FormClient(app, clock);
    const login = { email: 'admin@example.com', password: 'wrong password' };
    expect((await client.submit('/auth/login', login, { waitMs: 2000 })).status).to.equal(401);
    const started = clock.current;

    const first = await client.submit('/auth/login', login, { waitMs: 0 });
    expect(first.status).to.equal(429);
    expect(first.text).to.include(wait('15 minutes'));
    expect(Number(first.headers['retry-after'])).to.equal(15 * 60);

    clock.current = started + 3 * 60_000;
    const later = await client.submit('/auth/login', login, { waitMs: 0, json: true });
    expect(later.status).to.equal(429);
    expect(later.body).to.deep.equal({ success: false, error: wait('12 minutes'), code: 'rate_limited' });
    expect(Number(later.headers['retry-after'])).to.equal(12 * 60);

    clock.current = started + 15 * 60_000 - 20_000;
    const last = await client.submit('/auth/login', login, { waitMs: 0, json: true });
    expect(last.body.error).to.equal(wait('1 minute'));
    expect(Number(last.headers['retry-after'])).to.equal(20);
  });

  it('says hours for a window of hours', async () => {
    const client = new FormClient(app, clock);
    await client.submit('/auth/forgot', { email: 'nobody@example.com' });
    const forgot = await client.submit('/auth/forgot', { email: 'nobody@example.com' }, { json: true });
    expect(forgot.body.error).to.equal(wait('1 heure'));
    expect(Number(forgot.headers['retry-after'])).to.be.within(3600 - 5, 3600);

    await client.submit('/auth/register', { name: 'B', email: 'b@example.com', password: strongPassword });
    const register = await client.submit('/auth/register', { name: 'C', email: 'c@example.com', password: strongPassword }, { json: true });
    expect(register.body.error).to.equal(wait('1 heure et 30 minutes'));
    expect(Number(register.headers['retry-after'])).to.be.within(5400 - 5, 5400);
  });

  it('says the same on the API, with Retry-After', async () => {
    const me = await caller(ctx);
    // A logged-in caller gets three times RATE_LIMIT_API.
    for (let write = 1; write <= 3; write++) {
      expect(
        (
          await request(app)
            .put('/app/api/users/profile')
            .set('Cookie', me.cookie)
            .send({ name: `n${write}` })
        ).status,
      ).to.equal(200);
    }
    const refused = await request(app).put('/app/api/users/profile').set('Cookie', me.cookie).send({ name: 'late' });
    expect(refused.status).to.equal(429);
    expect(refused.body).to.include({ error: wait('2 heures'), code: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).to.be.within(7200 - 5, 7200);
  });
});
