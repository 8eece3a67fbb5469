// Login with two-step verification on: the password opens no session, the code page
// (/auth/2fa) or the JSON 401 follows; codes computed with otpauth at the app clock's time.
import { expect } from 'chai';
import type request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { incrementCounter } from '../../../models/rate-limits.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import { setUserPassword } from '../../../models/auth/admin-users.js';
import { replaceOwnPassword } from '../../../models/auth/profile.js';
import { logIn, makeRole, makeUser, PASSWORD } from '../../support/fixtures.js';
import { FormClient, useFakeClock } from '../../support/form-client.js';
import type { TestSmtpServer } from '../../support/smtp.js';
import { enrolTwoFactor, totpAt, totpNow } from '../../support/two-factor.js';

function cookieNamed(response: request.Response, name: string): string | undefined {
  return ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((cookie) => cookie.startsWith(`${name}=`));
}

describe('/auth/2fa: the second step of a login', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;
  const clock = useFakeClock();

  useAppWithSmtp({}, (createdApp, startedSmtp, context) => {
    app = createdApp;
    smtp = startedSmtp;
    ctx = context;
  });

  async function enrolledUser(email = 'ada@example.com') {
    const user = await makeUser(ctx, { email, name: 'Ada', permissions: ['admin.access'] });
    clock.install(app);
    return { user, ...(await enrolTwoFactor(ctx, user)) };
  }

  async function sessionCount(userId: number): Promise<number> {
    const row = await ctx.db('app_auth_sessions').where({ user_id: userId }).count<{ count: string }[]>({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }

  /** Email and password accepted: the client now holds the pending login's cookie. */
  async function passwordStep(client: FormClient, email = 'ada@example.com', json = false) {
    return client.submit('/auth/login', { email, password: PASSWORD, next: '/admin/users' }, { json });
  }

  function submitCode(client: FormClient, code: string, json = false) {
    return client.submit('/auth/2fa', { code }, { json, from: '/auth/login' });
  }

  it('opens no session for the correct password, sends the browser to «Vérification en deux étapes», then logs in with a code', async () => {
    const { user, secret } = await enrolledUser();
    const client = new FormClient(app, clock);
    const first = await passwordStep(client);
    expect(first.status).to.equal(303);
    expect(first.headers.location).to.equal('/auth/2fa');
    expect(cookieNamed(first, 'site.sid')).to.equal(undefined);
    expect(cookieNamed(first, 'site.2fa'))
      .to.match(/HttpOnly/i)
      // Path=/, as its `__Host-` name in production requires (lib/cookie-names.ts).
      .and.match(/Path=\/;/);
    expect(await sessionCount(user.id)).to.equal(0);
    const pending = await ctx.db('app_auth_pending_logins').where({ user_id: user.id });
    expect(pending).to.have.length(1);

    const page = await client.get('/auth/2fa');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<title>Vérification en deux étapes — Site de test</title>');
    expect(page.text).to.include('name="code"').and.include('name="_csrf"').and.include('name="_hp"');

    const done = await client.submit('/auth/2fa', { code: totpNow(ctx, secret, 0) }, { waitMs: 2000 });
    expect(done.status).to.equal(303);
    expect(done.headers.location).to.equal('/admin/users');
    expect(cookieNamed(done, 'site.sid')).to.match(/HttpOnly/i);
    expect(await sessionCount(user.id)).to.equal(1);
    expect(await ctx.db('app_auth_pending_logins').select('user_id')).to.have.length(0);
    expect((await client.get('/admin')).status).to.equal(200);
    const logins = await ctx.db('app_audit_events').where({ action: 'auth.login', actor_id: user.id });
    expect(logins).to.have.length(1);
    expect(logins[0].details).to.deep.equal({ method: 'password', second_factor: 'totp' });
  });

  it('answers a JSON client 401 second_factor_required, then {success:true} to POST /auth/2fa {code}', async () => {
    const { user, secret } = await enrolledUser();
    const client = new FormClient(app, clock);
    const first = await passwordStep(client, 'ada@example.com', true);
    expect(first.status).to.equal(401);
    expect(first.body).to.include({ success: false, code: 'second_factor_required' });
    expect(first.body.error).to.be.a('string');
    expect(await sessionCount(user.id)).to.equal(0);
    const done = await submitCode(client, totpNow(ctx, secret), true);
    expect(done.status).to.equal(200);
    expect(done.body).to.include({ success: true, redirect: '/admin/users' });
    expect(done.body.user).to.include({ id: user.id, email: 'ada@example.com' });
    expect(done.body.user).not.to.have.property('second_factor_enabled');
    expect(await sessionCount(user.id)).to.equal(1);
  });

  it('refuses a code already used (a replay within its window), and an older one after it', async () => {
    const { user, secret } = await enrolledUser();
    const code = totpNow(ctx, secret);
    const first = new FormClient(app, clock);
    await passwordStep(first);
    expect((await submitCode(first, code)).status).to.equal(303);
    const second = new FormClient(app, clock);
    await passwordStep(second);
    // Still within the same 30-second step (or the next, the window): refused.
    const replay = await submitCode(second, code, true);
    expect(replay.status).to.equal(401);
    expect(replay.body).to.include({ success: false, code: 'second_factor_wrong' });
    const older = await submitCode(second, totpNow(ctx, secret, -1), true);
    expect(older.status).to.equal(401);
    expect(await sessionCount(user.id)).to.equal(1);
  });

  it('accepts a code one step early or late (clock drift) and refuses two steps', async () => {
    const { secret } = await enrolledUser();
    // Each post happens 2 s after its code is computed (the form's minimum age): start
    // 5 s into a step, well after the enrolment's, so the posts below stay in it.
    const step = 30_000;
    clock.current = Math.floor(clock.current / step) * step + 10 * step + 5_000;
    const client = new FormClient(app, clock);
    await passwordStep(client, 'ada@example.com', true);
    const code = (offset: number) => totpAt(secret, clock.current + 2_000 + offset * step);
    for (const offset of [2, -2]) {
      const response = await client.submit('/auth/2fa', { code: code(offset) }, { json: true, from: '/auth/login' });
      expect(response.status, `offset ${offset}`).to.equal(401);
      expect(response.body.code).to.equal('second_factor_wrong');
    }
    const late = await client.submit('/auth/2fa', { code: code(-1) }, { json: true, from: '/auth/login' });
    expect(late.status).to.equal(200);

    const other = new FormClient(app, clock);
    clock.current = Math.floor(clock.current / step) * step + 3 * step + 5_000;
    await passwordStep(other, 'ada@example.com', true);
    const early = await other.submit('/auth/2fa', { code: code(1) }, { json: true, from: '/auth/login' });
    expect(early.status).to.equal(200);
  });

  it('ends the pending login after 5 minutes', async () => {
    const { user, secret } = await enrolledUser();
    const client = new FormClient(app, clock);
    await passwordStep(client);
    clock.advance(5 * 60_000 + 1000);
    const response = await client.submit('/auth/2fa', { code: totpNow(ctx, secret, 0) }, { from: '/auth/login' });
    expect(response.status).to.equal(401);
    expect(response.text).to.include('Cette vérification a expiré');
    expect(response.text).not.to.include('name="code"');
    expect(await sessionCount(user.id)).to.equal(0);
  });

  it('ends the pending login at the fifth wrong code: even the right one is refused then', async () => {
    const { user, secret } = await enrolledUser();
    const client = new FormClient(app, clock);
    await passwordStep(client, 'ada@example.com', true);
    const left: string[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      const response = await submitCode(client, '000000', true);
      expect(response.status).to.equal(401);
      left.push(response.body.code as string);
    }
    expect(left).to.deep.equal(['second_factor_wrong', 'second_factor_wrong', 'second_factor_wrong', 'second_factor_wrong', 'second_factor_expired']);
    expect(await ctx.db('app_auth_pending_logins').where({ user_id: user.id })).to.have.length(0);
    const right = await submitCode(client, totpNow(ctx, secret), true);
    expect(right.status).to.equal(401);
    expect(right.body.code).to.equal('second_factor_expired');
    expect(await sessionCount(user.id)).to.equal(0);
  });

  it('is bound to the browser that typed the password: another cookie jar cannot finish it', async () => {
    const { user, secret } = await enrolledUser();
    const owner = new FormClient(app, clock);
    await passwordStep(owner);
    const stranger = new FormClient(app, clock);
    const response = await submitCode(stranger, totpNow(ctx, secret), true);
    expect(response.status).to.equal(401);
    expect(response.body.code).to.equal('second_factor_expired');
    expect(await sessionCount(user.id)).to.equal(0);
    // The stranger's try spent nothing of the owner's pending login.
    expect((await submitCode(owner, totpNow(ctx, secret))).status).to.equal(303);
  });

  it('is single-use: the pending login is gone once a code opened the session, even with its cookie kept', async () => {
    const { user, secret } = await enrolledUser();
    const client = new FormClient(app, clock);
    const first = await passwordStep(client);
    const kept = cookieNamed(first, 'site.2fa')!.split(';')[0];
    const done = await submitCode(client, totpNow(ctx, secret));
    expect(done.status).to.equal(303);
    expect(cookieNamed(done, 'site.2fa')).to.match(/Expires=Thu, 01 Jan 1970/);
    expect(await ctx.db('app_auth_pending_logins').where({ user_id: user.id })).to.have.length(0);
    // Someone who kept the cookie and a fresh code gets nothing.
    const replay = new FormClient(app, clock);
    (replay.agent as unknown as { jar: { setCookie(cookie: string): void } }).jar.setCookie(`${kept}; Path=/auth`);
    clock.advance(30_000);
    const response = await submitCode(replay, totpNow(ctx, secret), true);
    expect(response.status).to.equal(401);
    expect(response.body.code).to.equal('second_factor_expired');
    expect(await sessionCount(user.id)).to.equal(1);
  });

  it('accepts a recovery code once, records it, and sends «Code de secours utilisé»', async () => {
    const { user, recoveryCodes } = await enrolledUser();
    const client = new FormClient(app, clock);
    await passwordStep(client, 'ada@example.com', true);
    const response = await submitCode(client, recoveryCodes[3].toLowerCase(), true);
    expect(response.status).to.equal(200);
    expect(await sessionCount(user.id)).to.equal(1);
    const message = await smtp.waitForMessage('ada@example.com');
    expect(message.subject).to.equal('Code de secours utilisé — Site de test');
    expect(message.text).to.include('Codes de secours restants\u00a0: 9');
    const events = await ctx.db('app_audit_events').where({ action: 'two_factor.recovery_used' });
    expect(events).to.have.length(1);
    expect(events[0]).to.include({ actor_id: user.id, target_type: 'user', target_id: String(user.id) });
    expect(JSON.stringify(events[0].details)).not.to.include(recoveryCodes[3]);

    const again = new FormClient(app, clock);
    await passwordStep(again, 'ada@example.com', true);
    const reused = await submitCode(again, recoveryCodes[3], true);
    expect(reused.status).to.equal(401);
    expect(reused.body.code).to.equal('second_factor_wrong');
    expect(await sessionCount(user.id)).to.equal(1);
  });

  it('counts wrong codes against the account too: once its budget is spent, 429 «pour ce compte» even from a fresh pending login', async () => {
    const { user, secret } = await enrolledUser();
    // As if earlier wrong guesses had come from other addresses, through other pending logins.
    const { max, windowMs } = ctx.config.rateLimits.second_factor_account;
    for (let guess = 0; guess < max; guess++) await incrementCounter(ctx, `second_factor_account:${user.id}`, windowMs);
    const client = new FormClient(app, clock);
    await passwordStep(client, 'ada@example.com', true);
    const response = await submitCode(client, totpNow(ctx, secret), true);
    expect(response.status).to.equal(429);
    expect(response.body.error).to.include('pour ce compte');
    expect(Number(response.headers['retry-after'])).to.be.above(0);
    expect(await sessionCount(user.id)).to.equal(0);
  });

  describe('a password changed while a login waits for its code', () => {
    const NEW_PASSWORD = 'a brand new passphrase';

    async function refusedAfter(change: (user: { id: number; email: string }) => Promise<void>) {
      const { user, secret } = await enrolledUser();
      const client = new FormClient(app, clock);
      await passwordStep(client, 'ada@example.com', true);
      expect(await ctx.db('app_auth_pending_logins').where({ user_id: user.id })).to.have.length(1);
      await change(user);
      expect(await ctx.db('app_auth_pending_logins').where({ user_id: user.id })).to.have.length(0);
      const response = await submitCode(client, totpNow(ctx, secret), true);
      expect(response.status).to.equal(401);
      expect(response.body).to.include({ success: false, code: 'second_factor_expired' });
      return user;
    }

    it('ends the pending login when an administrator sets the password', async () => {
      const user = await refusedAfter(async (target) => {
        const admin = await makeUser(ctx, { email: 'root@example.com', name: 'Root', permissions: ['admin.access', 'users.manage', 'users.view'] });
        await setUserPassword(
          ctx,
          { id: admin.id, name: admin.name, permissions: ['admin.access', 'users.manage', 'users.view'], ip: null },
          target.id,
          NEW_PASSWORD,
        );
      });
      expect(await sessionCount(user.id)).to.equal(0);
    });

    it('ends the pending login when the password is reset from its emailed link', async () => {
      const user = await refusedAfter(async () => {
        const browser = new FormClient(app, clock);
        expect((await browser.submit('/auth/forgot', { email: 'ada@example.com' })).status).to.equal(200);
        const link = smtp.linkIn(await smtp.waitForMessage('ada@example.com'), '/auth/reset');
        const reset = await browser.submit(
          '/auth/reset',
          { email: 'ada@example.com', token: link.searchParams.get('token')!, newPassword: NEW_PASSWORD },
          { from: `${link.pathname}${link.search}` },
        );
        expect(reset.status).to.equal(303);
      });
      expect(await sessionCount(user.id)).to.equal(0);
    });

    it('ends the pending login when the owner changes the password from another session, which stays open', async () => {
      const user = await refusedAfter(async (owner) => {
        const other = await logIn(ctx, owner);
        await replaceOwnPassword(ctx, { id: owner.id, name: 'Ada', ip: null }, { newPassword: NEW_PASSWORD, keepSid: other.sid });
      });
      expect(await sessionCount(user.id)).to.equal(1);
    });
  });

  it('opens no session for an account suspended between the password and the code', async () => {
    const { user, secret } = await enrolledUser();
    const client = new FormClient(app, clock);
    await passwordStep(client, 'ada@example.com', true);
    await ctx.db('app_auth_users').where({ id: user.id }).update({ suspended_at: new Date() });
    const response = await submitCode(client, totpNow(ctx, secret), true);
    expect(response.body).to.include({ success: false, code: 'account_suspended' });
    expect(await sessionCount(user.id)).to.equal(0);
    expect(await ctx.db('app_auth_pending_logins').where({ user_id: user.id })).to.have.length(0);
  });

  it('keeps a login without two-step verification as it was: one step, a session at once', async () => {
    const user = await makeUser(ctx, { email: 'bob@example.com' });
    const client = new FormClient(app, clock);
    const response = await client.submit('/auth/login', { email: 'bob@example.com', password: PASSWORD });
    expect(response.status).to.equal(303);
    expect(response.headers.location).to.equal('/account');
    expect(cookieNamed(response, 'site.2fa')).to.equal(undefined);
    expect(await sessionCount(user.id)).to.equal(1);
  });

  describe('a role requiring two-step verification', () => {
    async function requiredUser() {
      const roleId = await makeRole(ctx, ['admin.access', 'users.view'], 'editeurs');
      await ctx.db('app_auth_roles').where({ id: roleId }).update({ require_2fa: true });
      return makeUser(ctx, { email: 'eve@example.com', name: 'Eve', role: 'editeurs' });
    }

    it('takes the user to enrolment after login, and lets nothing else through until it is done', async () => {
      const user = await requiredUser();
      const client = new FormClient(app, clock);
      const login = await client.submit('/auth/login', { email: 'eve@example.com', password: PASSWORD, next: '/admin/users' });
      expect(login.status).to.equal(303);
      expect(login.headers.location).to.equal('/account/2fa');
      for (const path of ['/admin', '/admin/users', '/account', '/admin/profile']) {
        const response = await client.get(path);
        expect(response.status, path).to.equal(303);
        expect(response.headers.location, path).to.equal('/account/2fa');
      }
      const api = await client.get('/app/api/users');
      expect(api.status).to.equal(403);
      expect(api.body.code).to.equal('second_factor_enrolment_required');
      const rename = await client.agent.put('/app/api/users/profile').send({ name: 'Mallory' });
      expect(rename.status).to.equal(403);
      expect(rename.body.code).to.equal('second_factor_enrolment_required');
      expect((await ctx.db('app_auth_users').where({ id: user.id }).first())?.name).to.equal('Eve');

      const page = await client.get('/account/2fa');
      expect(page.status).to.equal(200);
      expect(page.text).to.include('Un rôle de ce compte exige la vérification en deux étapes');
      const status = await client.get('/app/api/users/profile/2fa');
      expect(status.status).to.equal(200);
      expect(status.body).to.include({ enabled: false, required: true });

      const setup = await client.agent.post('/app/api/users/profile/2fa/setup').send({ current_password: PASSWORD });
      expect(setup.status).to.equal(200);
      const enable = await client.agent.post('/app/api/users/profile/2fa/enable').send({ code: totpNow(ctx, setup.body.secret as string) });
      expect(enable.status).to.equal(200);
      expect((await client.get('/app/api/users')).status).to.equal(200);
      expect((await client.get('/admin/users')).status).to.equal(200);
    });

    it('lets the logout through', async () => {
      await requiredUser();
      const client = new FormClient(app, clock);
      await client.submit('/auth/login', { email: 'eve@example.com', password: PASSWORD });
      const logout = await client.submit('/auth/logout', {});
      expect(logout.status).to.equal(303);
      expect(logout.headers.location).to.equal('/auth/login?done=logout');
    });
  });
});
