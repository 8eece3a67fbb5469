import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { caller } from '../../support/fixtures.js';

describe('/app/api rate limit (RATE_LIMIT_API)', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp({ RATE_LIMIT_API: '2/1m' });
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  // The row's guard runs before the surface's steps (routes/define.ts): a write the
  // guard refuses never reaches the limiter, so only callers who may write spend it.
  it('refuses an anonymous write at its guard without spending the budget, then counts the caller’s writes up to 429 with Retry-After', async () => {
    for (let index = 0; index < 3; index++) expect((await request(app).put('/app/api/users/profile').send({ name: 'x' })).status).to.equal(401);
    const me = await caller(ctx);
    for (let index = 0; index < 6; index++)
      expect((await request(app).put('/app/api/users/profile').set('Cookie', me.cookie).send({ name: 'x' })).status).to.equal(200);
    const refused = await request(app).put('/app/api/users/profile').set('Cookie', me.cookie).send({ name: 'x' });
    expect(refused.status).to.equal(429);
    expect(refused.body.code).to.equal('rate_limited');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
  });

  it('gives a logged-in caller three times the budget, and never counts reads', async () => {
    const me = await caller(ctx);
    for (let index = 0; index < 5; index++) expect((await request(app).get('/app/api/users/profile/sessions').set('Cookie', me.cookie)).status).to.equal(200);
    for (let index = 0; index < 6; index++) {
      expect(
        (
          await request(app)
            .put('/app/api/users/profile')
            .set('Cookie', me.cookie)
            .send({ name: `n${index}` })
        ).status,
      ).to.equal(200);
    }
    expect((await request(app).put('/app/api/users/profile').set('Cookie', me.cookie).send({ name: 'late' })).status).to.equal(429);
  });
});
