import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { LAST_SEEN_RESOLUTION_MS } from '../../models/auth/sessions.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller } from '../support/fixtures.js';
import { countStatements } from '../support/statements.js';

const touchesSessions = (sql: string) => sql.includes('app_auth_sessions');

describe('what a session costs', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  /** The SQL statements the app issues while `run` goes on. */
  async function statementsDuring(run: () => Promise<unknown>): Promise<string[]> {
    return (await countStatements(ctx, run)).sql;
  }

  it('costs no session query for a request without the cookie', async () => {
    const statements = await statementsDuring(() => request(app).get('/auth/login').expect(200));
    expect(statements.filter(touchesSessions)).to.deep.equal([]);
  });

  it('is never looked up on public pages and public page reads, even with the cookie', async () => {
    const user = await caller(ctx, { permissions: ['pages.view'] });
    const statements = await statementsDuring(async () => {
      await request(app).get('/app/api/pages').set('Cookie', user.cookie).expect(200);
      await request(app).get('/app/api/pages/by-path?path=nowhere').set('Cookie', user.cookie).expect(404);
      await request(app).get('/nowhere').set('Cookie', user.cookie).expect(404);
      await request(app).get('/assets/css/site.css').set('Cookie', user.cookie).expect(200);
    });
    expect(statements.filter(touchesSessions)).to.deep.equal([]);
  });

  it('costs two statements on a page that reads nothing else: the session and the user with its permissions', async () => {
    const user = await caller(ctx);
    // The page asks once whether an account exists; then the application knows.
    await request(app).get('/auth/logout').expect(200);
    const statements = await statementsDuring(() => request(app).get('/auth/logout').set('Cookie', user.cookie).expect(200));
    expect(statements).to.have.length(2);
    expect(statements[0]).to.match(/^SELECT sess FROM app_auth_sessions/);
    expect(statements[1]).to.include('AS permissions');
  });

  it('costs one session read and one user query per authenticated request, the last-seen write throttled', async () => {
    const user = await caller(ctx, { permissions: ['users.view'] });
    const start = Date.now();
    ctx.clock.set(() => start);
    // The first request may record last_seen_at; the next ones, within the resolution, do not.
    await request(app).get('/app/api/users/profile/sessions').set('Cookie', user.cookie).expect(200);
    const statements = await statementsDuring(async () => {
      for (let index = 0; index < 5; index++) {
        await request(app).get('/app/api/users/profile/sessions').set('Cookie', user.cookie).expect(200);
      }
    });
    const sessionStatements = statements.filter(touchesSessions);
    // Per request: the store's read, and the handler's own listing of the sessions.
    expect(sessionStatements.filter((sql) => sql.startsWith('SELECT sess FROM'))).to.have.length(5);
    expect(sessionStatements.filter((sql) => /^update/i.test(sql.trim()))).to.deep.equal([]);

    ctx.clock.set(() => start + LAST_SEEN_RESOLUTION_MS + 1000);
    const later = await statementsDuring(() => request(app).get('/app/api/users/profile/sessions').set('Cookie', user.cookie).expect(200));
    expect(later.filter((sql) => touchesSessions(sql) && /^update/i.test(sql.trim()))).to.have.length(1);
  });
});
