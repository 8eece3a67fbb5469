// The invitation lifecycle (pending state in the user JSON, a new invitation kills the
// old link, a failed send changes nothing) and the device names and French dates of
// the profile's session list, with a real SMTP server and the injected clock.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { frenchDates } from '../../../lib/dates.js';
import { deviceName } from '../../../lib/user-agent.js';
import { createSession } from '../../../models/auth/sessions.js';
import { ConfigError } from '../../../lib/config.js';
import { testConfig, useAppWithSmtp, type App } from '../../support/app.js';
import { caller, logIn } from '../../support/fixtures.js';
import { FormClient, useFakeClock } from '../../support/form-client.js';
import type { TestSmtpServer } from '../../support/smtp.js';

const HOUR = 3_600_000;
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const CHROME_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

describe('invitations and session devices (/app/api/users)', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;
  const clock = useFakeClock();

  useAppWithSmtp({}, (createdApp, startedSmtp, context) => {
    app = createdApp;
    smtp = startedSmtp;
    ctx = context;
  });

  beforeEach(() => {
    // 15 January 2026, 13:05 UTC: 14:05 in Paris (winter time).
    clock.current = Date.UTC(2026, 0, 15, 13, 5);
    clock.install(app);
  });

  async function invite(cookie: string, email: string) {
    const response = await request(app).post('/app/api/users').set('Cookie', cookie).send({ email, name: 'Invitée' });
    expect(response.status).to.equal(201);
    const link = smtp.linkIn(await smtp.waitForMessage(email), '/auth/setup');
    smtp.clear();
    return { user: response.body as { id: number; invitation: unknown }, link };
  }

  async function setUp(link: URL, password: string) {
    return new FormClient(app, clock).submit(
      '/auth/setup',
      { email: link.searchParams.get('email')!, token: link.searchParams.get('token')!, newPassword: password, confirmPassword: password },
      { json: true, from: '/auth/setup' },
    );
  }

  describe('pending invitation in the user JSON', () => {
    it('shows {pending: true, expires_at} (48 h) on an invited account, in the answer, the list and the detail; null once the password is set', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const { user, link } = await invite(admin.cookie, 'guest@example.com');
      const expires = new Date(clock.current + 48 * HOUR).toISOString();
      expect(user.invitation).to.deep.equal({ pending: true, expires_at: expires });

      const list = await request(app).get('/app/api/users').set('Cookie', admin.cookie);
      const listed = list.body.items.find((item: { id: number }) => item.id === user.id);
      expect(listed.invitation).to.deep.equal({ pending: true, expires_at: expires });
      expect(list.body.items.find((item: { id: number }) => item.id === admin.id).invitation).to.equal(null);
      const detail = await request(app).get(`/app/api/users/${user.id}`).set('Cookie', admin.cookie);
      expect(detail.body.invitation).to.deep.equal({ pending: true, expires_at: expires });

      expect((await setUp(link, 'a brand new password')).status).to.equal(200);
      const after = await request(app).get(`/app/api/users/${user.id}`).set('Cookie', admin.cookie);
      expect(after.body.invitation).to.equal(null);
    });
  });

  describe('POST /app/api/users/:id/invitation', () => {
    it('sends a new invitation whose link works, kills the old link and records one audit event', async () => {
      const admin = await caller(ctx, { role: 'admin', name: 'Alice Admin' });
      const { user, link: old } = await invite(admin.cookie, 'guest@example.com');
      clock.advance(HOUR);

      const response = await request(app).post(`/app/api/users/${user.id}/invitation`).set('Cookie', admin.cookie);

      expect(response.status).to.equal(204);
      const fresh = smtp.linkIn(await smtp.waitForMessage('guest@example.com'), '/auth/setup');
      expect(fresh.searchParams.get('token')).not.to.equal(old.searchParams.get('token'));
      const detail = await request(app).get(`/app/api/users/${user.id}`).set('Cookie', admin.cookie);
      expect(detail.body.invitation).to.deep.equal({ pending: true, expires_at: new Date(clock.current + 48 * HOUR).toISOString() });
      const events = await ctx.db('app_audit_events').where({ action: 'user.invitation_resent' });
      expect(events).to.have.length(1);
      expect(events[0]).to.include({ actor_id: admin.id, actor_name: 'Alice Admin', target_type: 'user', target_id: String(user.id), target_label: 'Invitée' });

      const dead = await setUp(old, 'a brand new password');
      expect(dead.status).to.equal(400);
      expect(await ctx.db('app_auth_accounts').where({ user_id: user.id })).to.have.length(0);
      expect((await setUp(fresh, 'a brand new password')).status).to.equal(200);
      expect(await ctx.db('app_auth_accounts').where({ user_id: user.id })).to.have.length(1);
    });

    it('answers 503 when the email cannot be sent, and leaves the previous link and the log as they were', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const { user, link: old } = await invite(admin.cookie, 'guest@example.com');
      const before = await ctx.db('app_auth_verifications').where({ user_id: user.id }).select('token_hash', 'expires_at');
      smtp.setFailing(true);
      clock.advance(HOUR);

      const response = await request(app).post(`/app/api/users/${user.id}/invitation`).set('Cookie', admin.cookie);

      expect(response.status).to.equal(503);
      expect(response.body.code).to.equal('mail_failed');
      expect(await ctx.db('app_auth_verifications').where({ user_id: user.id }).select('token_hash', 'expires_at')).to.deep.equal(before);
      expect(await ctx.db('app_audit_events').where({ action: 'user.invitation_resent' })).to.have.length(0);
      smtp.setFailing(false);
      expect((await setUp(old, 'a brand new password')).status).to.equal(200);
    });

    it('refuses an account that already has a password (409 account_active), and keeps /resend-invitation as its older name', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const active = await caller(ctx);
      const response = await request(app).post(`/app/api/users/${active.id}/invitation`).set('Cookie', admin.cookie);
      expect(response.status).to.equal(409);
      expect(response.body.code).to.equal('account_active');
      const { user } = await invite(admin.cookie, 'guest@example.com');
      expect((await request(app).post(`/app/api/users/${user.id}/resend-invitation`).set('Cookie', admin.cookie)).status).to.equal(204);
      await smtp.waitForMessage('guest@example.com');
    });
  });

  describe('GET /app/api/users/profile/sessions', () => {
    it('names each device and gives the last activity in French, Paris time, with the raw user agent beside it', async () => {
      const me = await caller(ctx);
      await logIn(ctx, me, { userAgent: FIREFOX_WINDOWS });
      clock.advance(HOUR);
      await logIn(ctx, me, { userAgent: SAFARI_IPHONE });
      await createSession(ctx, me.id, {});

      const response = await request(app).get('/app/api/users/profile/sessions').set('Cookie', me.cookie);

      expect(response.status).to.equal(200);
      const byAgent = new Map<string | null, { device: string; last_seen_label: string; last_seen_at: string }>(
        response.body.items.map((item: { user_agent: string | null }) => [item.user_agent, item]),
      );
      expect(byAgent.get(FIREFOX_WINDOWS)).to.include({ device: 'Firefox sur Windows', last_seen_label: '15\u00a0janvier 2026 à 14\u00a0h\u00a005' });
      expect(byAgent.get(SAFARI_IPHONE)).to.include({ device: 'Mobile Safari sur iOS', last_seen_label: '15\u00a0janvier 2026 à 15\u00a0h\u00a005' });
      expect(byAgent.get(SAFARI_IPHONE)!.last_seen_at).to.equal('2026-01-15T14:05:00.000Z');
      expect(byAgent.get(null)).to.include({ device: 'Appareil inconnu' });
      expect(byAgent.get('test-agent')).to.include({ device: 'Appareil inconnu', last_seen_label: '15\u00a0janvier 2026 à 14\u00a0h\u00a005' });
    });
  });

  describe('device names and French dates', () => {
    it('reads browser and system from the user agent', () => {
      expect(deviceName(FIREFOX_WINDOWS)).to.equal('Firefox sur Windows');
      expect(deviceName(CHROME_MAC)).to.equal('Chrome sur macOS');
      expect(deviceName('curl/8.5.0')).to.equal('Appareil inconnu');
      expect(deviceName('')).to.equal('Appareil inconnu');
      expect(deviceName(null)).to.equal('Appareil inconnu');
    });

    it('writes dates in the configured time zone, summer time included', () => {
      const paris = frenchDates('Europe/Paris');
      expect(paris.dateTime(new Date('2026-07-01T22:30:00Z'))).to.equal('2\u00a0juillet 2026 à 0\u00a0h\u00a030');
      expect(paris.date('2026-07-01T22:30:00Z')).to.equal('2\u00a0juillet 2026');
      expect(frenchDates('America/Montreal').dateTime(new Date('2026-07-01T22:30:00Z'))).to.equal('1er\u00a0juillet 2026 à 18\u00a0h\u00a030');
      expect(paris.dateTime(null)).to.equal('');
    });

    it('takes the zone from APP_TIME_ZONE (Europe/Paris by default) and refuses an unknown one at start, naming the variable', () => {
      expect(ctx.config.timeZone).to.equal('Europe/Paris');
      expect(testConfig({ APP_TIME_ZONE: 'America/Montreal' }).timeZone).to.equal('America/Montreal');
      expect(() => testConfig({ APP_TIME_ZONE: 'Mars/Olympus' })).to.throw(ConfigError, /APP_TIME_ZONE/);
    });
  });
});
