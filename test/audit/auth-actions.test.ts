// Audited actions of visitors and of people on their own account: each writes exactly
// one event, with the right fields, in the same statement or transaction as its change.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { issueEmailChange } from '../../models/auth/profile.js';
import { requestPasswordReset } from '../../models/auth/recovery.js';
import { issueToken } from '../../models/auth/verifications.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { PASSWORD, caller, logIn, makeUser } from '../support/fixtures.js';
import { FormClient, useFakeClock } from '../support/form-client.js';
import { countStatements } from '../support/statements.js';
import { auditMark, eventsSince, failInserts, onlyEventSince } from './helpers.js';

describe('audited actions of visitors and account holders', () => {
  let app: App;
  let ctx: AppContext;
  const clock = useFakeClock();
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  async function logInWithForm(client: FormClient, email: string, password = PASSWORD) {
    return client.submit('/auth/login', { email, password });
  }

  describe('login', () => {
    it('records auth.login with the account as actor and target and the client address', async () => {
      const user = await makeUser(ctx, { name: 'Alice' });
      const mark = await auditMark(ctx);
      expect((await logInWithForm(new FormClient(app, clock), user.email)).status).to.equal(303);
      const event = await onlyEventSince(ctx, mark);
      expect(event).to.deep.include({
        action: 'auth.login',
        actor_id: user.id,
        actor_name: 'Alice',
        target_type: 'user',
        target_id: String(user.id),
        target_label: 'Alice',
      });
      expect(event.ip).to.match(/127\.0\.0\.1$/);
      expect(event.at.getTime()).to.equal(clock.current);
    });

    it('costs no statement of its own: the INSERT of the event rides on the one that stores the session', async () => {
      const user = await makeUser(ctx);
      const client = new FormClient(app, clock);
      const tokens = await client.tokens('/auth/login');
      clock.advance(2000);
      const counted = await countStatements(ctx, () =>
        client.agent
          .post('/auth/login')
          .type('form')
          .send({ ...tokens, _hp: '', email: user.email, password: PASSWORD }),
      );
      expect(counted.result.status).to.equal(303);
      // As before the audit log: rate-limit count, the user with its hash and permissions,
      // the session; the last one now also inserts the event.
      expect(counted.count, counted.sql.join('\n')).to.equal(3);
      const audited = counted.sql.filter((sql) => /app_audit_events/.test(sql));
      expect(audited).to.have.length(1);
      expect(audited[0]).to.match(/audit AS \(INSERT INTO app_audit_events .*\)\s+INSERT INTO app_auth_sessions/s);
      expect((audited[0].match(/INSERT INTO app_audit_events/g) ?? []).length).to.equal(1);
    });

    it('opens no session when its event cannot be written (one statement: both or neither)', async () => {
      const user = await makeUser(ctx);
      const restore = await failInserts(ctx, 'app_audit_events', `NEW.action = 'auth.login'`);
      try {
        const response = await logInWithForm(new FormClient(app, clock), user.email);
        expect(response.status).to.equal(500);
      } finally {
        await restore();
      }
      expect(await ctx.db('app_auth_sessions').where({ user_id: user.id })).to.have.length(0);
      expect((await eventsSince(ctx, 0)).map((event) => event.action)).to.deep.equal([]);
    });

    it('records a wrong password as auth.login_failed by nobody, naming the account but never the typed address', async () => {
      const user = await makeUser(ctx, { name: 'Alice', email: 'alice@example.com' });
      const mark = await auditMark(ctx);
      expect((await logInWithForm(new FormClient(app, clock), 'ALICE@example.com', 'wrong password')).status).to.equal(401);
      const event = await onlyEventSince(ctx, mark);
      expect(event).to.deep.include({
        action: 'auth.login_failed',
        actor_id: null,
        actor_name: null,
        target_type: 'user',
        target_id: String(user.id),
        details: { reason: 'invalid_credentials' },
      });
      expect(JSON.stringify(event).toLowerCase()).not.to.include('alice@example.com');
      expect(JSON.stringify(event)).not.to.include('wrong password');
    });

    it('records an unknown address as auth.login_failed with no target and no trace of what was typed', async () => {
      await makeUser(ctx);
      const mark = await auditMark(ctx);
      expect((await logInWithForm(new FormClient(app, clock), 'nobody@example.com', 'guess')).status).to.equal(401);
      const event = await onlyEventSince(ctx, mark);
      expect(event).to.deep.include({
        action: 'auth.login_failed',
        actor_id: null,
        actor_name: null,
        target_type: null,
        target_id: null,
        target_label: null,
        details: { reason: 'invalid_credentials' },
      });
      expect(JSON.stringify(event)).not.to.match(/nobody|guess/);
    });

    it('records an unverified account refused after its right password with that reason', async () => {
      const user = await makeUser(ctx, { verified: false });
      const mark = await auditMark(ctx);
      expect((await logInWithForm(new FormClient(app, clock), user.email)).status).to.equal(401);
      const event = await onlyEventSince(ctx, mark);
      expect(event).to.deep.include({ action: 'auth.login_failed', target_id: String(user.id), details: { reason: 'email_unverified' } });
    });
  });

  it('records auth.logout in the statement that deletes the session', async () => {
    const user = await makeUser(ctx, { name: 'Alice' });
    const client = new FormClient(app, clock);
    await logInWithForm(client, user.email);
    const mark = await auditMark(ctx);
    const response = await client.submit('/auth/logout', {}, { from: '/auth/logout' });
    expect(response.status).to.equal(303);
    const event = await onlyEventSince(ctx, mark);
    expect(event).to.deep.include({ action: 'auth.logout', actor_id: user.id, actor_name: 'Alice', target_id: String(user.id) });
    expect(await ctx.db('app_auth_sessions').where({ user_id: user.id })).to.have.length(0);
  });

  it('records auth.password_reset by the account whose link was followed, with the sessions it closed', async () => {
    const user = await makeUser(ctx, { name: 'Alice' });
    await logIn(ctx, user);
    const issued = await requestPasswordReset(ctx, user.email);
    const mark = await auditMark(ctx);
    const response = await new FormClient(app, clock).submit(
      '/auth/reset',
      { email: user.email, token: issued!.token, newPassword: 'a brand new passphrase' },
      { from: `/auth/reset?email=${encodeURIComponent(user.email)}&token=${issued!.token}` },
    );
    expect(response.status).to.equal(303);
    const event = await onlyEventSince(ctx, mark);
    expect(event).to.deep.include({ action: 'auth.password_reset', actor_id: user.id, target_id: String(user.id), details: { sessions_closed: 1 } });
    expect(JSON.stringify(event)).not.to.match(/brand new|token/);
  });

  it('records auth.account_setup when an invitation is followed, by the invited account, then the login it opens', async () => {
    const invited = await makeUser(ctx, { name: 'Iris', password: null, verified: false });
    const { token } = await issueToken(ctx, 'account_setup', invited);
    const mark = await auditMark(ctx);
    const response = await new FormClient(app, clock).submit(
      '/auth/setup',
      { email: invited.email, token, newPassword: 'my very own passphrase', confirmPassword: 'my very own passphrase' },
      { from: `/auth/setup?email=${encodeURIComponent(invited.email)}&token=${token}` },
    );
    expect(response.status, response.text.slice(0, 300)).to.equal(303);
    // Activation signs the person in: the login follows, recorded as any login is.
    const [event, login, ...others] = await eventsSince(ctx, mark);
    expect(others).to.deep.equal([]);
    expect(event).to.deep.include({ action: 'auth.account_setup', actor_id: invited.id, actor_name: 'Iris', target_id: String(invited.id) });
    expect(login).to.deep.include({
      action: 'auth.login',
      actor_id: invited.id,
      target_id: String(invited.id),
      details: { method: 'password', via: 'account_setup' },
    });
    expect(JSON.stringify([event, login])).not.to.match(/passphrase|token/);
  });

  describe('on one’s own account (/app/api/users/profile)', () => {
    it('records account.password_changed, never the passwords', async () => {
      const me = await caller(ctx, { name: 'Alice' });
      await logIn(ctx, me);
      const mark = await auditMark(ctx);
      const response = await request(app)
        .post('/app/api/users/profile/password')
        .set('Cookie', me.cookie)
        .send({ current_password: PASSWORD, new_password: 'another long passphrase' });
      expect(response.status).to.equal(204);
      const event = await onlyEventSince(ctx, mark);
      expect(event).to.deep.include({
        action: 'account.password_changed',
        actor_id: me.id,
        actor_name: 'Alice',
        target_id: String(me.id),
        details: { sessions_closed: 1 },
      });
      expect(JSON.stringify(event)).not.to.match(/passphrase|battery/);
    });

    it('records account.email_change_requested without the new address, then account.email_changed when the link is followed', async () => {
      const me = await caller(ctx, { name: 'Alice' });
      let mark = await auditMark(ctx);
      const started = await request(app)
        .post('/app/api/users/profile/email')
        .set('Cookie', me.cookie)
        .send({ email: 'new-alice@example.com', current_password: PASSWORD });
      expect(started.status).to.equal(202);
      const requested = await onlyEventSince(ctx, mark);
      expect(requested).to.deep.include({ action: 'account.email_change_requested', actor_id: me.id, target_id: String(me.id), details: {} });
      expect(JSON.stringify(requested)).not.to.include('new-alice');

      const { token } = await issueEmailChange(ctx, me, 'other-alice@example.com');
      mark = await auditMark(ctx);
      const confirmed = await request(app).post('/app/api/users/email/confirm').send({ token });
      expect(confirmed.status).to.equal(200);
      const changed = await onlyEventSince(ctx, mark);
      expect(changed).to.deep.include({ action: 'account.email_changed', actor_id: me.id, target_id: String(me.id) });
      expect(JSON.stringify(changed)).not.to.match(/alice@example|other-alice/);
    });

    it('records account.session_revoked for one session, and nothing for a session that is not one’s own', async () => {
      const me = await caller(ctx);
      const other = await logIn(ctx, me);
      const stranger = await caller(ctx);
      const mark = await auditMark(ctx);
      expect((await request(app).delete(`/app/api/users/profile/sessions/${stranger.publicId}`).set('Cookie', me.cookie)).status).to.equal(404);
      expect(await eventsSince(ctx, mark)).to.have.length(0);
      expect((await request(app).delete(`/app/api/users/profile/sessions/${other.publicId}`).set('Cookie', me.cookie)).status).to.equal(204);
      const event = await onlyEventSince(ctx, mark);
      expect(event).to.deep.include({ action: 'account.session_revoked', actor_id: me.id, target_id: String(me.id), details: { current: false } });
    });

    it('records account.sessions_revoked once for all of them, with how many', async () => {
      const me = await caller(ctx);
      await logIn(ctx, me);
      await logIn(ctx, me);
      const mark = await auditMark(ctx);
      const response = await request(app).delete('/app/api/users/profile/sessions?keep_current=true').set('Cookie', me.cookie);
      expect(response.body).to.deep.equal({ revoked: 2 });
      const event = await onlyEventSince(ctx, mark);
      expect(event).to.deep.include({ action: 'account.sessions_revoked', actor_id: me.id, details: { revoked: 2, kept_current: true } });
    });
  });
});
