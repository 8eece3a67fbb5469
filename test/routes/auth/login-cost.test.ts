// What a login costs: the statements of a successful POST /auth/login, counted on the
// application's pool, and form tokens made only for pages that show a form.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { createCsrf } from '../../../middleware/csrf.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { PASSWORD, makeUser } from '../../support/fixtures.js';
import { countStatements } from '../../support/statements.js';
import { FormClient, useFakeClock } from '../../support/form-client.js';

describe('what a login costs', () => {
  let app: App;
  let ctx: AppContext;
  const clock = useFakeClock();
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  async function countedLogin(client: FormClient, email: string) {
    const tokens = await client.tokens('/auth/login');
    clock.advance(2000);
    return countStatements(ctx, () =>
      client.agent
        .post('/auth/login')
        .type('form')
        .send({ ...tokens, _hp: '', email, password: PASSWORD }),
    );
  }

  it('costs at most 5 SQL statements for a successful POST /auth/login, the first one after start included', async () => {
    const user = await makeUser(ctx, { permissions: ['admin.access'] });
    const client = new FormClient(app, clock);
    // As after a restart: the application does not know yet that an account exists.
    const tokens = await client.tokens('/auth/login');
    ctx.memo.accountExists = false;
    clock.advance(2000);
    const cold = await countStatements(ctx, () =>
      client.agent
        .post('/auth/login')
        .type('form')
        .send({ ...tokens, _hp: '', email: user.email, password: PASSWORD }),
    );
    expect(cold.result.status).to.equal(303);
    expect(cold.result.headers.location).to.equal('/admin');
    // Rate-limit count, "does an account exist", the user with its hash and permissions, the session.
    expect(cold.count, cold.sql.join('\n')).to.equal(4);

    const warm = await countedLogin(new FormClient(app, clock), user.email);
    expect(warm.result.status).to.equal(303);
    // Once an account is known to exist, the application no longer asks.
    expect(warm.count, warm.sql.join('\n')).to.equal(3);
    expect(warm.sql.filter((sql) => /app_auth_users/.test(sql))).to.have.length(1);
  });

  it('costs 5 for a visitor already logged in: the session and user reads, and the old session deleted with the new one written', async () => {
    const user = await makeUser(ctx);
    const client = new FormClient(app, clock);
    expect((await countedLogin(client, user.email)).result.status).to.equal(303);
    const again = await countedLogin(client, user.email);
    expect(again.result.status).to.equal(303);
    // Session read, user read, rate-limit count, login, and one statement deleting the
    // old session (no planted id survives a login) while writing the new one.
    expect(again.count, again.sql.join('\n')).to.equal(5);
    expect(await ctx.db('app_auth_sessions').where({ user_id: user.id })).to.have.length(1);
  });

  it('makes form tokens only when a page is rendered, never for a redirect', async () => {
    const csrf = createCsrf(ctx);
    const mini = express();
    mini.use(csrf.provideToken);
    mini.get('/redirect', (_req, res) => res.redirect(303, '/elsewhere'));
    mini.get('/form', (_req, res) => void res.json({ token: res.locals.csrfToken, again: res.locals.csrfToken }));
    const redirected = await request(mini).get('/redirect').expect(303);
    expect(redirected.headers['set-cookie']).to.equal(undefined);
    const page = await request(mini).get('/form').expect(200);
    expect(String(page.headers['set-cookie'])).to.match(/^site\.csrf=/);
    expect(page.body.token).to.be.a('string').and.equal(page.body.again);
  });
});
