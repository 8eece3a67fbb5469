// Two-step verification through the JSON API: enrolment, recovery codes, turning it off,
// roles requiring it, and an administrator's reset; codes computed with otpauth at the
// app clock's time, mail through a real SMTP server.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { decryptSecret } from '../../../models/auth/two-factor-crypto.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import { PASSWORD, caller, makeRole } from '../../support/fixtures.js';
import type { TestSmtpServer } from '../../support/smtp.js';
import { enrolTwoFactor, totpNow } from '../../support/two-factor.js';

describe('/app/api two-step verification', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;

  useAppWithSmtp({}, (createdApp, startedSmtp, context) => {
    app = createdApp;
    smtp = startedSmtp;
    ctx = context;
  });

  // The clock stands still unless a test moves it: codes stay in their step.
  let now = 0;
  beforeEach(() => {
    now = Math.floor(Date.now() / 30_000) * 30_000 + 1_000;
    ctx.clock.set(() => now);
  });

  const post = (path: string, cookie: string, body: object) => request(app).post(`/app/api${path}`).set('Cookie', cookie).send(body);
  const remove = (path: string, cookie: string, body?: object) => request(app).delete(`/app/api${path}`).set('Cookie', cookie).send(body);
  const events = (action: string) => ctx.db('app_audit_events').where({ action }).orderBy('id');

  describe('enrolment', () => {
    it('sets up a pending secret with the current password, then turns it on with a code and answers ten recovery codes once', async () => {
      const user = await caller(ctx, { email: 'ada@example.com', name: 'Ada' });
      const setup = await post('/users/profile/2fa/setup', user.cookie, { current_password: PASSWORD });
      expect(setup.status).to.equal(200);
      expect(setup.body).to.have.all.keys('secret', 'otpauth_url', 'qr_svg');
      expect(setup.body.secret).to.match(/^[A-Z2-7]{32}$/);
      expect(setup.body.otpauth_url).to.match(/^otpauth:\/\/totp\/Site%20de%20test:ada%40example\.com\?/);
      expect(setup.body.otpauth_url).to.include(`secret=${setup.body.secret}`);
      expect(setup.body.qr_svg).to.match(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(setup.body.qr_svg).not.to.match(/<script|on\w+=|style=/i);
      // Pending, not active: the status says so and a login would still need only the password.
      const pending = await request(app).get('/app/api/users/profile/2fa').set('Cookie', user.cookie);
      expect(pending.body).to.include({ enabled: false, pending: true, required: false, recovery_codes_left: 0 });
      expect(await events('two_factor.enabled')).to.have.length(0);

      const enable = await post('/users/profile/2fa/enable', user.cookie, { code: totpNow(ctx, setup.body.secret as string) });
      expect(enable.status).to.equal(200);
      expect(enable.body).to.have.all.keys('recovery_codes');
      const codes = enable.body.recovery_codes as string[];
      expect(codes).to.have.length(10);
      expect(new Set(codes).size).to.equal(10);
      for (const code of codes) expect(code).to.match(/^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){3}$/);

      const status = await request(app).get('/app/api/users/profile/2fa').set('Cookie', user.cookie);
      expect(status.body).to.include({ enabled: true, pending: false, recovery_codes_left: 10 });
      const stored = await ctx.db('app_auth_recovery_codes').where({ user_id: user.id }).select('code_hash');
      expect(stored.map((row) => row.code_hash).sort()).to.deep.equal(
        codes
          .map((code) =>
            createHash('sha256')
              .update(`${user.id}:${code.replace(/-/g, '')}`)
              .digest('hex'),
          )
          .sort(),
      );
      const [event] = await events('two_factor.enabled');
      expect(event).to.include({ actor_id: user.id, actor_name: 'Ada', target_type: 'user', target_id: String(user.id) });
      expect(JSON.stringify(event)).not.to.include(setup.body.secret as string);
    });

    it('never stores the secret in clear: AES-256-GCM under the key derived from SESSION_SECRET, bound to the account', async () => {
      const user = await caller(ctx);
      const other = await caller(ctx);
      const setup = await post('/users/profile/2fa/setup', user.cookie, { current_password: PASSWORD });
      const secret = setup.body.secret as string;
      const pendingRow = await ctx.db('app_auth_two_factor').where({ user_id: user.id }).first();
      expect(pendingRow!.pending_secret).to.match(/^v1\.[A-Za-z0-9_-]+$/);
      await post('/users/profile/2fa/enable', user.cookie, { code: totpNow(ctx, secret) });
      const { rows } = await ctx.db.raw<{ rows: Array<Record<string, unknown>> }>('SELECT * FROM app_auth_two_factor');
      const dump = JSON.stringify(rows);
      expect(dump).not.to.include(secret);
      expect(dump.toLowerCase()).not.to.include(secret.toLowerCase());
      expect(dump).not.to.include(Buffer.from(secret).toString('base64'));
      const row = await ctx.db('app_auth_two_factor').where({ user_id: user.id }).first();
      expect(row).to.include({ pending_secret: null });
      expect(decryptSecret(ctx, user.id, row!.secret!)).to.equal(secret);
      // Copied onto another account's row, or read under another SESSION_SECRET, it does not decrypt.
      expect(decryptSecret(ctx, other.id, row!.secret!)).to.equal(undefined);
      const rotated = {
        ...ctx,
        config: { ...ctx.config, sessionSecret: 'another-session-secret-0123456789-abcdefghij' },
        memo: { ...ctx.memo, twoFactorKey: undefined },
      };
      expect(decryptSecret(rotated, user.id, row!.secret!)).to.equal(undefined);
    });

    it('refuses a wrong current password (400, the login-grade budget counted) and writes nothing', async () => {
      const user = await caller(ctx);
      const response = await post('/users/profile/2fa/setup', user.cookie, { current_password: 'not the password' });
      expect(response.status).to.equal(400);
      expect(response.body.code).to.equal('current_password_wrong');
      expect(await ctx.db('app_auth_two_factor').where({ user_id: user.id })).to.have.length(0);
      const counters = await ctx.db('app_auth_rate_limits').whereLike('key', 'current_password%').select('key', 'hits');
      expect(counters.map((row) => row.key).sort()).to.deep.equal(['current_password:127.0.0.1', `current_password_account:${user.id}`].sort());
    });

    it('refuses a wrong first code (400 on the code field) and keeps the setup pending', async () => {
      const user = await caller(ctx);
      await post('/users/profile/2fa/setup', user.cookie, { current_password: PASSWORD });
      const response = await post('/users/profile/2fa/enable', user.cookie, { code: '000000' });
      expect(response.status).to.equal(400);
      expect(response.body.code).to.equal('second_factor_wrong');
      expect(response.body.details).to.deep.equal([{ field: 'code', message: response.body.error }]);
      expect(await ctx.db('app_auth_two_factor').where({ user_id: user.id }).first()).to.include({ enabled_at: null });
      expect(await ctx.db('app_auth_recovery_codes').where({ user_id: user.id })).to.have.length(0);
    });

    it('refuses to enable without a setup (409), a setup older than 15 minutes, and a second setup once on (409)', async () => {
      const user = await caller(ctx);
      expect((await post('/users/profile/2fa/enable', user.cookie, { code: '123456' })).body.code).to.equal('no_pending_setup');
      const setup = await post('/users/profile/2fa/setup', user.cookie, { current_password: PASSWORD });
      now += 15 * 60_000 + 1000;
      const late = await post('/users/profile/2fa/enable', user.cookie, { code: totpNow(ctx, setup.body.secret as string) });
      expect(late.status).to.equal(409);
      expect(late.body.code).to.equal('no_pending_setup');
      const again = await post('/users/profile/2fa/setup', user.cookie, { current_password: PASSWORD });
      await post('/users/profile/2fa/enable', user.cookie, { code: totpNow(ctx, again.body.secret as string) });
      const third = await post('/users/profile/2fa/setup', user.cookie, { current_password: PASSWORD });
      expect(third.status).to.equal(409);
      expect(third.body.code).to.equal('two_factor_enabled');
    });
  });

  describe('recovery codes and turning it off', () => {
    it('renews the recovery codes with the current password and a code: the old ones die', async () => {
      const user = await caller(ctx, { email: 'ada@example.com' });
      const { secret, recoveryCodes } = await enrolTwoFactor(ctx, user);
      const wrong = await post('/users/profile/2fa/recovery-codes', user.cookie, { current_password: PASSWORD, code: '000000' });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.code).to.equal('second_factor_wrong');
      const response = await post('/users/profile/2fa/recovery-codes', user.cookie, { current_password: PASSWORD, code: totpNow(ctx, secret) });
      expect(response.status).to.equal(200);
      const fresh = response.body.recovery_codes as string[];
      expect(fresh).to.have.length(10);
      expect(fresh).not.to.include.members([recoveryCodes[0]]);
      expect(await events('two_factor.recovery_codes_renewed')).to.have.length(1);
      // An old code no longer opens anything; a new one does (and is told by email).
      const old = await post('/users/profile/2fa/recovery-codes', user.cookie, { current_password: PASSWORD, code: recoveryCodes[1] });
      expect(old.status).to.equal(400);
      const withNew = await post('/users/profile/2fa/recovery-codes', user.cookie, { current_password: PASSWORD, code: fresh[0] });
      expect(withNew.status).to.equal(200);
      expect(await events('two_factor.recovery_used')).to.have.length(1);
      expect((await smtp.waitForMessage('ada@example.com')).subject).to.equal('Code de secours utilisé — Site de test');
    });

    it('turns it off with the current password and a TOTP (204): secret and codes are gone, the event recorded', async () => {
      const user = await caller(ctx);
      const { secret } = await enrolTwoFactor(ctx, user);
      const badPassword = await remove('/users/profile/2fa', user.cookie, { current_password: 'nope nope', code: totpNow(ctx, secret) });
      expect(badPassword.status).to.equal(400);
      expect(badPassword.body.code).to.equal('current_password_wrong');
      const response = await remove('/users/profile/2fa', user.cookie, { current_password: PASSWORD, code: totpNow(ctx, secret) });
      expect(response.status).to.equal(204);
      expect(await ctx.db('app_auth_two_factor').where({ user_id: user.id })).to.have.length(0);
      expect(await ctx.db('app_auth_recovery_codes').where({ user_id: user.id })).to.have.length(0);
      expect(await events('two_factor.disabled')).to.have.length(1);
      const again = await remove('/users/profile/2fa', user.cookie, { current_password: PASSWORD, code: totpNow(ctx, secret) });
      expect(again.status).to.equal(409);
    });

    it('turns it off with a recovery code too, and sends the notice', async () => {
      const user = await caller(ctx, { email: 'bob@example.com' });
      const { recoveryCodes } = await enrolTwoFactor(ctx, user);
      const response = await remove('/users/profile/2fa', user.cookie, { current_password: PASSWORD, code: recoveryCodes[9] });
      expect(response.status).to.equal(204);
      expect(await events('two_factor.recovery_used')).to.have.length(1);
      expect((await smtp.waitForMessage('bob@example.com')).subject).to.equal('Code de secours utilisé — Site de test');
    });

    it('refuses a wrong code and leaves everything on (rolled back)', async () => {
      const user = await caller(ctx);
      await enrolTwoFactor(ctx, user);
      const response = await remove('/users/profile/2fa', user.cookie, { current_password: PASSWORD, code: '123456' });
      expect(response.status).to.equal(400);
      expect(await ctx.db('app_auth_two_factor').where({ user_id: user.id })).to.have.length(1);
      expect(await ctx.db('app_auth_recovery_codes').where({ user_id: user.id })).to.have.length(10);
      expect(await events('two_factor.disabled')).to.have.length(0);
    });

    it('refuses to turn it off while a role of the account requires it (409)', async () => {
      const roleId = await makeRole(ctx, [], 'securise');
      await ctx.db('app_auth_roles').where({ id: roleId }).update({ require_2fa: true });
      const user = await caller(ctx, { role: 'securise' });
      const { secret } = await enrolTwoFactor(ctx, user);
      const response = await remove('/users/profile/2fa', user.cookie, { current_password: PASSWORD, code: totpNow(ctx, secret) });
      expect(response.status).to.equal(409);
      expect(response.body.code).to.equal('two_factor_required');
      expect(await ctx.db('app_auth_two_factor').where({ user_id: user.id })).to.have.length(1);
    });
  });

  describe('roles: require_2fa', () => {
    it('is false by default, set on POST and PUT, and shown by GET', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const created = await post('/roles', admin.cookie, { name: 'equipe', permissions: [] });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ require_2fa: false });
      const strict = await post('/roles', admin.cookie, { name: 'stricte', permissions: [], require_2fa: true });
      expect(strict.body).to.include({ require_2fa: true });
      const updated = await request(app).put(`/app/api/roles/${created.body.id}`).set('Cookie', admin.cookie).send({ require_2fa: true });
      expect(updated.status).to.equal(200);
      expect(updated.body).to.include({ require_2fa: true });
      const shown = await request(app).get(`/app/api/roles/${created.body.id}`).set('Cookie', admin.cookie);
      expect(shown.body).to.include({ require_2fa: true });
      expect((await ctx.db('app_auth_roles').where({ id: created.body.id }).first())?.require_2fa).to.equal(true);
      const bad = await request(app).put(`/app/api/roles/${created.body.id}`).set('Cookie', admin.cookie).send({ require_2fa: 'maybe' });
      expect(bad.status).to.equal(400);
    });

    it('can be required of the admin role, whose name and permissions stay fixed', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const adminRole = await ctx.db('app_auth_roles').where({ name: 'admin' }).first('id');
      const refused = await request(app).put(`/app/api/roles/${adminRole!.id}`).set('Cookie', admin.cookie).send({ require_2fa: true, description: 'x' });
      expect(refused.status).to.equal(409);
      expect(refused.body.code).to.equal('system_role');
      // The caller holds admin without two-step verification: it confirms it will enrol.
      const response = await request(app).put(`/app/api/roles/${adminRole!.id}`).set('Cookie', admin.cookie).send({ require_2fa: true, confirm: true });
      expect(response.status).to.equal(200);
      expect(response.body).to.include({ name: 'admin', require_2fa: true });
      // From now on the administrator must enrol before anything else.
      const blocked = await request(app).get('/app/api/users').set('Cookie', admin.cookie);
      expect(blocked.status).to.equal(403);
      expect(blocked.body.code).to.equal('second_factor_enrolment_required');
    });
  });

  describe('DELETE /app/api/users/:id/2fa (administrator reset)', () => {
    it('turns it off for the user, records it and tells the user by email', async () => {
      const manager = await caller(ctx, { name: 'Gérante', permissions: ['admin.access', 'users.manage', 'users.view'] });
      const user = await caller(ctx, { email: 'lost@example.com', name: 'Perdu' });
      await enrolTwoFactor(ctx, user);
      const response = await remove(`/users/${user.id}/2fa`, manager.cookie);
      expect(response.status).to.equal(204);
      expect(await ctx.db('app_auth_two_factor').where({ user_id: user.id })).to.have.length(0);
      expect(await ctx.db('app_auth_recovery_codes').where({ user_id: user.id })).to.have.length(0);
      const [event] = await events('two_factor.reset_by_admin');
      expect(event).to.include({ actor_id: manager.id, actor_name: 'Gérante', target_type: 'user', target_id: String(user.id) });
      const message = await smtp.waitForMessage('lost@example.com');
      expect(message.subject).to.equal('Vérification en deux étapes désactivée — Site de test');
      expect(message.text).to.include('lost@example.com');
    });

    it("refuses an account that outranks the caller (403), one's own (403 use_profile) and one without it (409)", async () => {
      const manager = await caller(ctx, { permissions: ['admin.access', 'users.manage'] });
      const administrator = await caller(ctx, { role: 'admin', email: 'root@example.com' });
      await enrolTwoFactor(ctx, administrator);
      const outranked = await remove(`/users/${administrator.id}/2fa`, manager.cookie);
      expect(outranked.status).to.equal(403);
      expect(outranked.body.code).to.equal('target_outranks_caller');
      expect(await ctx.db('app_auth_two_factor').where({ user_id: administrator.id })).to.have.length(1);
      await enrolTwoFactor(ctx, manager);
      const self = await remove(`/users/${manager.id}/2fa`, manager.cookie);
      expect(self.status).to.equal(403);
      expect(self.body.code).to.equal('use_profile');
      const plain = await caller(ctx);
      const none = await remove(`/users/${plain.id}/2fa`, manager.cookie);
      expect(none.status).to.equal(409);
      expect(await events('two_factor.reset_by_admin')).to.have.length(0);
      expect(smtp.messages).to.have.length(0);
    });
  });
});
