// A session that expires while a form is filled: the POST leads to the login page with
// the way back, what was typed (never a password) is kept server-side under a cookie
// token, never in the URL, and the page shows it again once, after the login. The kept
// form passes the cross-site and CSRF token checks a form passes.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller, logIn, makeUser, PASSWORD, type LoggedIn } from '../support/fixtures.js';
import { FormClient, useFakeClock } from '../support/form-client.js';
import { restoredMessage } from '../../lib/messages.js';

const cookiesOf = (response: request.Response) => ([] as string[]).concat(response.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]);
const setCookieLine = (response: request.Response, name: string) =>
  ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((line) => line.startsWith(`${name}=`));

describe('a form sent after its session expired', () => {
  let app: App;
  let ctx: AppContext;
  const clock = useFakeClock();
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  /** Opens the page signed in, then the session expires; returns what the browser still holds. */
  async function openThenExpire(page: string): Promise<{ user: LoggedIn & { id: number }; cookie: string; token: string }> {
    const user = await caller(ctx, { role: 'admin', name: 'Ada' });
    const shown = await request(app).get(page).set('Cookie', user.cookie);
    expect(shown.status).to.equal(200);
    const token = /name="_csrf" value="([^"]+)"/.exec(shown.text)![1];
    const cookie = [user.cookie, ...cookiesOf(shown)].join('; ');
    // Expired, as the clock leaves it: unreadable, its row kept until the next prune.
    await ctx
      .db('app_auth_sessions')
      .where({ user_id: user.id })
      .update({ expire: new Date(ctx.clock.nowMs() - 1000) });
    return { user, cookie, token };
  }

  const typed = { name: 'Bob Martin', email: 'bob@example.com', password: 'a secret password' };

  /** The new-account form, sent from its page with the session's cookie and CSRF token. */
  function sendNewUserForm(cookie: string, token: string): request.Test {
    return request(app)
      .post('/admin/users')
      .set('Cookie', cookie)
      .set('Referer', 'http://site.test/admin/users/new')
      .type('form')
      .send({ _csrf: token, ...typed });
  }

  it('leads to the login page with the way back, keeps what was typed but the password, and gives it back once after the login', async () => {
    const { user, cookie, token } = await openThenExpire('/admin/users/new');
    const sent = await sendNewUserForm(cookie, token);
    expect(sent.status).to.equal(303);
    expect(sent.headers.location).to.equal('/auth/login?next=%2Fadmin%2Fusers%2Fnew');
    expect(sent.headers.location).not.to.include('bob');
    const draftCookie = setCookieLine(sent, 'site.form')!;
    expect(draftCookie).to.include('HttpOnly').and.include('SameSite=Lax');
    expect(await ctx.db('app_auth_users').where({ email: typed.email }).first()).to.equal(undefined);
    const [row] = await ctx.db('app_auth_form_drafts');
    expect(row.page).to.equal('/admin/users/new');
    expect(row.fields).to.deep.equal({ name: typed.name, email: typed.email });
    expect(JSON.stringify(row)).not.to.include('secret');

    // The login page keeps the way back.
    const login = await request(app).get(sent.headers.location);
    expect(login.text).to.include('name="next" value="/admin/users/new"');

    const again = await logIn(ctx, user);
    const withDraft = `${again.cookie}; ${draftCookie.split(';')[0]}`;
    const restored = await request(app).get('/admin/users/new').set('Cookie', withDraft);
    expect(restored.status).to.equal(200);
    expect(restored.text).to.include('value="Bob Martin"').and.include('value="bob@example.com"');
    expect(restored.text).not.to.include('a secret password');
    expect(restored.text).to.include(restoredMessage);
    expect(setCookieLine(restored, 'site.form')).to.match(/^site\.form=;/);
    expect(await ctx.db('app_auth_form_drafts')).to.have.length(0);

    const later = await request(app).get('/admin/users/new').set('Cookie', withDraft);
    expect(later.text).not.to.include('value="Bob Martin"');
  });

  it('gives a form of a page with several forms back to the right form', async () => {
    const { user, cookie, token } = await openThenExpire('/account');
    const sent = await request(app)
      .post('/account/name')
      .set('Cookie', cookie)
      .set('Referer', 'http://site.test/account')
      .type('form')
      .send({ _csrf: token, name: 'Ada Lovelace' });
    expect(sent.status).to.equal(303);
    expect(sent.headers.location).to.equal('/auth/login?next=%2Faccount');
    const [row] = await ctx.db('app_auth_form_drafts');
    expect(row.form).to.equal('name');
    const again = await logIn(ctx, user);
    const restored = await request(app)
      .get('/account')
      .set('Cookie', `${again.cookie}; ${setCookieLine(sent, 'site.form')!.split(';')[0]}`);
    expect(restored.text).to.include('value="Ada Lovelace"');
    expect((await ctx.db('app_auth_users').where({ id: user.id }).first())!.name).to.equal('Ada');
  });

  it('gives a kept form back only to the account whose session expired, not to the next one signing in in that browser', async () => {
    const { user, cookie, token } = await openThenExpire('/admin/users/new');
    const sent = await sendNewUserForm(cookie, token);
    expect(sent.status).to.equal(303);
    const draftCookie = setCookieLine(sent, 'site.form')!.split(';')[0];
    expect((await ctx.db('app_auth_form_drafts').first())!.user_id).to.equal(user.id);

    const other = await caller(ctx, { role: 'admin', name: 'Eve' });
    const seenByOther = await request(app).get('/admin/users/new').set('Cookie', `${other.cookie}; ${draftCookie}`);
    expect(seenByOther.status).to.equal(200);
    expect(seenByOther.text).not.to.include('Bob Martin').and.not.to.include('bob@example.com').and.not.to.include(restoredMessage);
    expect(await ctx.db('app_auth_form_drafts')).to.have.length(1);

    const again = await logIn(ctx, user);
    const restored = await request(app).get('/admin/users/new').set('Cookie', `${again.cookie}; ${draftCookie}`);
    expect(restored.text).to.include('value="Bob Martin"');
    expect(await ctx.db('app_auth_form_drafts')).to.have.length(0);
  });

  it('keeps nothing once the expired session is gone and the browser names no account', async () => {
    const { user, cookie, token } = await openThenExpire('/admin/users/new');
    await ctx.db('app_auth_sessions').where({ user_id: user.id }).delete();
    const sent = await request(app)
      .post('/admin/users')
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: token, ...typed });
    expect(sent.status).to.equal(401);
    expect(setCookieLine(sent, 'site.form')).to.equal(undefined);
    expect(await ctx.db('app_auth_form_drafts')).to.have.length(0);
  });

  it('keeps it for the account this browser signed in to when the expired session’s row is already gone', async () => {
    const user = await makeUser(ctx, { email: 'ada@example.com', name: 'Ada' });
    const browser = new FormClient(app, clock);
    expect((await browser.submit('/auth/login', { email: 'ada@example.com', password: PASSWORD })).status).to.equal(303);
    const page = await browser.get('/account');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
    await ctx.db('app_auth_sessions').where({ user_id: user.id }).delete();
    const sent = await browser.agent.post('/account/name').set('Referer', 'http://site.test/account').type('form').send({ _csrf: token, name: 'Ada Lovelace' });
    expect(sent.status).to.equal(303);
    expect(sent.headers.location).to.equal('/auth/login?next=%2Faccount');
    expect(await ctx.db('app_auth_form_drafts').pluck('user_id')).to.deep.equal([user.id]);
  });

  it('never keeps a second-step code (nor the password) of the two-step forms', async () => {
    const { cookie, token } = await openThenExpire('/account/2fa');
    for (const form of ['/account/2fa/enable', '/account/2fa/recovery-codes', '/account/2fa/disable']) {
      const sent = await request(app)
        .post(form)
        .set('Cookie', cookie)
        .set('Referer', 'http://site.test/account/2fa')
        .type('form')
        .send({ _csrf: token, current_password: 'a secret password', code: 'ABCD-EFGH-JKLM-NPQR' });
      expect(sent.status, form).to.equal(303);
    }
    const rows = await ctx.db('app_auth_form_drafts');
    expect(rows).to.have.length(3);
    for (const row of rows) expect(row.fields).to.deep.equal({});
    expect(JSON.stringify(rows)).not.to.include('ABCD').and.not.to.include('secret');
  });

  it('keeps nothing from another site, nor without the token of the expired session', async () => {
    const { cookie, token } = await openThenExpire('/admin/users/new');
    const crossSite = await request(app)
      .post('/admin/users')
      .set('Cookie', cookie)
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send({ _csrf: token, ...typed });
    expect(crossSite.status).to.equal(401);
    const wrongToken = await request(app)
      .post('/admin/users')
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: 'forged.token', ...typed });
    expect(wrongToken.status).to.equal(401);
    const noSession = await request(app)
      .post('/admin/users')
      .type('form')
      .send({ _csrf: token, ...typed });
    expect(noSession.status).to.equal(401);
    for (const response of [crossSite, wrongToken, noSession]) expect(setCookieLine(response, 'site.form')).to.equal(undefined);
    expect(await ctx.db('app_auth_form_drafts')).to.have.length(0);
  });

  it('still refuses, without keeping anything, JSON clients and URLs no form answers', async () => {
    const { cookie, token } = await openThenExpire('/admin/users/new');
    const json = await request(app)
      .post('/admin/users')
      .set('Cookie', cookie)
      .set('Accept', 'application/json')
      .type('form')
      .send({ _csrf: token, ...typed });
    expect(json.status).to.equal(401);
    expect(json.body.code).to.equal('unauthenticated');
    const unknown = await request(app).post('/admin/no-such-form').set('Cookie', cookie).type('form').send({ _csrf: token, name: 'x' });
    expect(unknown.status).to.equal(401);
    expect(await ctx.db('app_auth_form_drafts')).to.have.length(0);
  });

  it('leaves the login form itself as it was (a visitor of /auth has no session to lose)', async () => {
    const response = await new FormClient(app, clock).submit('/auth/login', { email: 'nobody@example.com', password: 'wrong password' });
    expect(response.status).to.be.oneOf([400, 401]);
    expect(setCookieLine(response, 'site.form')).to.equal(undefined);
  });

  it('shows the page as usual when the kept-form cookie holds a malformed escape (no 500)', async () => {
    const user = await caller(ctx, { role: 'admin', name: 'Ada' });
    const shown = await request(app).get('/admin/users/new').set('Cookie', `${user.cookie}; site.form=%E0%A4%A`);
    expect(shown.status).to.equal(200);
    expect(shown.text).to.include('name="email"').and.not.include('La session avait expiré');
  });
});
