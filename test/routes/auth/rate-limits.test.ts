// Per-address rate limits of the public forms, counted in PostgreSQL.
import { expect } from 'chai';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { clientAddressKey } from '../../../lib/client-address.js';
import { createRateLimiter } from '../../../middleware/rate-limit.js';
import { createFirstAdmin } from '../../../models/auth/registration.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { FormClient, strongPassword, useFakeClock } from '../../support/form-client.js';

const BUDGET = 3;
const LIMITS = {
  RATE_LIMIT_LOGIN: `${BUDGET}/15m`,
  RATE_LIMIT_REGISTER: `${BUDGET}/1h`,
  RATE_LIMIT_FORGOT_PASSWORD: `${BUDGET}/1h`,
  RATE_LIMIT_RESET_PASSWORD: `${BUDGET}/1h`,
  RATE_LIMIT_SETUP_ACCOUNT: `${BUDGET}/1h`,
  RATE_LIMIT_VERIFY_EMAIL: `${BUDGET}/1h`,
  RATE_LIMIT_RESEND_VERIFICATION: `${BUDGET}/1h`,
};
// The wait is the window's remaining time, rounded up: a few seconds into a 15-minute window, «15 minutes».
const rateMessage = (windowSeconds: number) =>
  `Trop de tentatives depuis cette adresse. Un nouvel essai sera possible dans ${windowSeconds === 900 ? '15 minutes' : '1 heure'}.`;

const OPERATIONS: Array<[string, string, Record<string, string>, number]> = [
  ['login', '/auth/login', { email: 'admin@example.com', password: 'wrong password' }, 900],
  ['register', '/auth/register', { name: 'B', email: 'admin@example.com', password: strongPassword }, 3600],
  ['forgot_password', '/auth/forgot', { email: 'nobody@example.com' }, 3600],
  ['reset_password', '/auth/reset', { email: 'admin@example.com', token: 'bad', newPassword: strongPassword }, 3600],
  ['setup_account', '/auth/setup', { email: 'admin@example.com', token: 'bad', newPassword: strongPassword, confirmPassword: strongPassword }, 3600],
  ['verify_email', '/auth/confirm', { email: 'admin@example.com', token: 'bad' }, 3600],
  ['resend_verification', '/auth/resend-verification', { email: 'nobody@example.com' }, 3600],
];

function statusOnly(error: { status?: number }, _req: Request, res: Response, _next: NextFunction): void {
  res.status(error.status ?? 500).end();
}

describe('/auth rate limits', () => {
  let app: App;
  let ctx: AppContext;
  const clock = useFakeClock();
  before(() => {
    app = createTestApp(LIMITS);
    ctx = contextOf(app);
  });
  // resetData waits for the emails still being sent in the background first.
  beforeEach(() => resetData(ctx));
  afterEach(() => ctx.background.settle());

  describe('each operation', () => {
    beforeEach(() => createFirstAdmin(ctx, { email: 'admin@example.com', password: strongPassword, name: 'Admin' }));

    for (const [operation, path, fields, windowSeconds] of OPERATIONS) {
      it(`refuses the ${BUDGET + 1}th ${operation} POST from one address with 429, Retry-After and the same form`, async () => {
        const client = new FormClient(app, clock);
        for (let attempt = 1; attempt <= BUDGET; attempt++) {
          const response = await client.submit(path, fields, { from: path === '/auth/resend-verification' ? '/auth/login' : path });
          expect(response.status, `attempt ${attempt}`).not.to.equal(429);
        }
        const refused = await client.submit(path, fields, { from: path === '/auth/resend-verification' ? '/auth/login' : path });
        expect(refused.status).to.equal(429);
        expect(Number(refused.headers['retry-after'])).to.be.within(windowSeconds - 30, windowSeconds);
        expect(refused.text).to.include(rateMessage(windowSeconds));
        expect(refused.text).to.include('role="alert"');
        expect(refused.text).to.include('<form method="post"');
        const json = await client.submit(path, fields, { from: '/auth/login', json: true });
        expect(json.status).to.equal(429);
        expect(json.body).to.deep.equal({ success: false, error: rateMessage(windowSeconds), code: 'rate_limited' });
        const row = await ctx.db('app_auth_rate_limits').where('key', 'like', `${operation}:%`).first();
        expect(row!.hits).to.equal(BUDGET + 2);
      });
    }

    it('does not count showing a form, only POSTs', async () => {
      for (let index = 0; index < BUDGET * 3; index++) expect((await request(app).get('/auth/login')).status).to.equal(200);
      expect(await ctx.db('app_auth_rate_limits')).to.have.length(0);
      const client = new FormClient(app, clock);
      expect((await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword })).status).to.equal(303);
    });

    it('counts refusals of every kind (anti-bot, invalid input) against the budget', async () => {
      const client = new FormClient(app, clock);
      await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword }, { waitMs: 100 });
      await client.submit('/auth/login', { email: 'not an address', password: 'x' });
      await client.submit('/auth/login', { email: 'admin@example.com', password: 'wrong password' });
      const refused = await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword });
      expect(refused.status).to.equal(429);
    });

    it('opens the budget again once the window has passed', async () => {
      const client = new FormClient(app, clock);
      for (let attempt = 0; attempt <= BUDGET; attempt++) await client.submit('/auth/login', { email: 'admin@example.com', password: 'wrong password' });
      expect((await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword })).status).to.equal(429);
      clock.advance(15 * 60_000);
      expect((await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword })).status).to.equal(303);
    });

    it('gives a logged-in visitor no wider budget on the forms', async () => {
      const client = new FormClient(app, clock);
      expect((await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword })).status).to.equal(303);
      expect((await client.get('/admin')).status).to.equal(200);
      for (let attempt = 2; attempt <= BUDGET; attempt++) await client.submit('/auth/login', { email: 'admin@example.com', password: 'wrong password' });
      expect((await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword })).status).to.equal(429);
    });

    it('shares the count between two app instances on one database', async () => {
      const first = createTestApp(LIMITS);
      const second = createTestApp(LIMITS);
      try {
        const onFirst = new FormClient(first, clock);
        const onSecond = new FormClient(second, clock);
        for (let attempt = 1; attempt <= BUDGET; attempt++) {
          expect((await onFirst.submit('/auth/forgot', { email: `x${attempt}@example.com` })).status).to.equal(200);
        }
        const refused = await onSecond.submit('/auth/forgot', { email: 'y@example.com' });
        expect(refused.status).to.equal(429);
      } finally {
        await closeTestApp(first);
        await closeTestApp(second);
      }
    });

    it('ignores X-Forwarded-For without APP_TRUST_PROXY: a client cannot pick a fresh address', async () => {
      const client = new FormClient(app, clock);
      for (let attempt = 0; attempt <= BUDGET; attempt++) {
        await client.submit(
          '/auth/login',
          { email: 'admin@example.com', password: 'wrong password' },
          { headers: { 'X-Forwarded-For': `203.0.113.${attempt}` } },
        );
      }
      const refused = await client.submit(
        '/auth/login',
        { email: 'admin@example.com', password: strongPassword },
        { headers: { 'X-Forwarded-For': '198.51.100.7' } },
      );
      expect(refused.status).to.equal(429);
    });

    it('counts per forwarded address behind a trusted proxy (APP_TRUST_PROXY=loopback)', async () => {
      const proxied = createTestApp({ ...LIMITS, APP_TRUST_PROXY: 'loopback' });
      try {
        const client = new FormClient(proxied, clock);
        const headers = { 'X-Forwarded-For': '203.0.113.9' };
        for (let attempt = 0; attempt <= BUDGET; attempt++)
          await client.submit('/auth/login', { email: 'admin@example.com', password: 'wrong password' }, { headers });
        expect((await client.submit('/auth/login', { email: 'admin@example.com', password: strongPassword }, { headers })).status).to.equal(429);
        const other = await client.submit(
          '/auth/login',
          { email: 'admin@example.com', password: strongPassword },
          { headers: { 'X-Forwarded-For': '203.0.113.10' } },
        );
        expect(other.status).to.equal(303);
        expect(await ctx.db('app_auth_rate_limits').pluck('key')).to.include.members(['login:203.0.113.9', 'login:203.0.113.10']);
      } finally {
        await closeTestApp(proxied);
      }
    });
  });

  // Anti-bot refusals (sent too fast) count; a typo would not (rate-limits-fair.test.ts).
  it('counts first-run submissions against the register budget, shared with registration', async () => {
    const client = new FormClient(app, clock);
    for (let attempt = 0; attempt < BUDGET; attempt++) {
      expect((await client.submit('/auth', { name: 'A', email: 'a@example.com', password: strongPassword }, { waitMs: 100 })).status).to.equal(400);
    }
    const refused = await client.submit('/auth', { name: 'A', email: 'a@example.com', password: strongPassword });
    expect(refused.status).to.equal(429);
    expect(refused.text).to.include('Créer le compte administrateur');
    expect(await ctx.db('app_auth_users')).to.have.length(0);
    await createFirstAdmin(ctx, { email: 'admin@example.com', password: strongPassword, name: 'Admin' });
    const register = await client.submit('/auth/register', { name: 'B', email: 'b@example.com', password: strongPassword });
    expect(register.status).to.equal(429);
  });

  describe('client address', () => {
    const key = (ip: string | undefined) => clientAddressKey(ctx, ip);

    it('groups IPv6 clients by /64 and unwraps IPv4-mapped addresses', () => {
      expect(key('2001:db8:1:2:3:4:5:6')).to.equal(key('2001:db8:1:2:ffff::1'));
      expect(key('2001:db8:1:3::1')).not.to.equal(key('2001:db8:1:2::1'));
      expect(key('::ffff:127.0.0.1')).to.equal('127.0.0.1');
      expect(key('192.0.2.1')).to.equal('192.0.2.1');
    });

    it('suspends limiting when no address can be read, with one warning only', async () => {
      // A fresh application: the warning is once per application.
      const fresh = createTestApp(LIMITS);
      const freshCtx = contextOf(fresh);
      const warnings: unknown[] = [];
      freshCtx.logger.warn = (...args: unknown[]) => void warnings.push(args);
      try {
        const mini = express();
        mini.use((req, _res, next) => {
          Object.defineProperty(req, 'ip', { value: undefined });
          next();
        });
        mini.post('/x', createRateLimiter(freshCtx, 'login', { budget: { max: 1, windowMs: 60_000 } }), (_req, res) => void res.send('ok'));
        mini.use(statusOnly);
        for (let attempt = 0; attempt < 4; attempt++) expect((await request(mini).post('/x')).status).to.equal(200);
        expect(warnings.filter((args) => String((args as unknown[]).at(-1)).includes('rate limiting is suspended'))).to.have.length(1);
      } finally {
        await closeTestApp(fresh);
      }
    });
  });

  describe('createRateLimiter (for the API)', () => {
    it('is made by its first request without the library reporting it as an error (the lazy creation is on purpose)', async () => {
      const reported: unknown[] = [];
      const { error, warn } = ctx.logger;
      ctx.logger.error = (...args: unknown[]) => void reported.push(args);
      ctx.logger.warn = (...args: unknown[]) => void reported.push(args);
      try {
        const mini = express();
        mini.use(createRateLimiter(ctx, 'api', { budget: { max: 5, windowMs: 60_000 } }));
        mini.post('/x', (_req, res) => void res.send('ok'));
        mini.use(statusOnly);
        expect((await request(mini).post('/x')).status).to.equal(200);
        expect(Number((await ctx.db('app_auth_rate_limits').count({ n: '*' }).first())?.n)).to.equal(1);
      } finally {
        ctx.logger.error = error;
        ctx.logger.warn = warn;
      }
      expect(reported).to.deep.equal([]);
    });

    it('gives a logged-in caller three times the budget when asked, and can count every method', async () => {
      const mini = express();
      mini.use((req, _res, next) => {
        if (req.get('x-user')) req.user = { id: 1 } as never;
        next();
      });
      mini.use(createRateLimiter(ctx, 'api', { budget: { max: 2, windowMs: 60_000 }, loggedInMultiplier: 3, methods: ['GET', 'POST'] }));
      mini.get('/x', (_req, res) => void res.send('ok'));
      mini.use(statusOnly);
      const statuses = [];
      for (let attempt = 0; attempt < 3; attempt++) statuses.push((await request(mini).get('/x')).status);
      expect(statuses).to.deep.equal([200, 200, 429]);
      await ctx.db('app_auth_rate_limits').delete();
      const logged = [];
      for (let attempt = 0; attempt < 7; attempt++) logged.push((await request(mini).get('/x').set('x-user', '1')).status);
      expect(logged).to.deep.equal([200, 200, 200, 200, 200, 200, 429]);
    });
  });
});
