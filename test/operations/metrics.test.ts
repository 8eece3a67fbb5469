import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller, makeUser } from '../support/fixtures.js';

const TOKEN = 'metrics-token-0123456789-abcdefghijklmnop';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
function samples(text: string): Sample[] {
  const result: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    result.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return result;
}

/** The value of the one sample with this name and these labels (undefined when absent). */
function valueOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples(text).filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  expect(found.length, `${name} ${JSON.stringify(labels)}`).to.be.at.most(1);
  return found[0]?.value;
}

async function scrape(app: App): Promise<string> {
  const response = await request(app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
  expect(response.status).to.equal(200);
  expect(response.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4/);
  expect(response.headers['cache-control']).to.equal('no-store');
  return response.text;
}

describe('GET /metrics', () => {
  describe('without METRICS_TOKEN', () => {
    it('does not exist: 404, with or without an Authorization header', async () => {
      const app = createTestApp();
      expect(contextOf(app).metrics.registry).to.equal(undefined);
      await request(app).get('/metrics').expect(404);
      await request(app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(404);
    });
  });

  describe('with METRICS_TOKEN', () => {
    let app: App;
    let ctx: AppContext;
    before(() => {
      // One write per hour and address for an anonymous caller: three for a logged-in one.
      app = createTestApp({ METRICS_TOKEN: TOKEN, RATE_LIMIT_API: '1/1h' });
      ctx = contextOf(app);
    });
    beforeEach(() => resetData(ctx));

    it('refuses a missing or wrong token with 401 and WWW-Authenticate: Bearer', async () => {
      for (const authorization of [undefined, `Bearer ${TOKEN.slice(0, -1)}x`, `Bearer ${TOKEN}extra`, 'Bearer short', `Basic ${TOKEN}`, TOKEN]) {
        const get = request(app).get('/metrics');
        const response = await (authorization === undefined ? get : get.set('Authorization', authorization));
        expect(response.status, String(authorization)).to.equal(401);
        expect(response.headers['www-authenticate'], String(authorization)).to.match(/^Bearer /);
        expect(response.text).to.not.include('http_request_duration_seconds');
      }
      await request(app).get('/metrics').set('Authorization', `bearer ${TOKEN}`).expect(200);
    });

    it('labels requests by route pattern and status class, never by the raw path or id', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const first = await makeUser(ctx, { email: 'first-metrics@example.com' });
      const second = await makeUser(ctx, { email: 'second-metrics@example.com' });
      for (const id of [first.id, second.id, first.id]) await request(app).get(`/app/api/users/${id}`).set('Cookie', admin.cookie).expect(200);
      await request(app).get('/app/api/users/999999').set('Cookie', admin.cookie).expect(404);
      await request(app).get('/app/api/no-such-route-4242').expect(404);
      await request(app).get('/AUTH').expect(200);

      const text = await scrape(app);
      const route = '/app/api/users/:id';
      expect(valueOf(text, 'http_request_duration_seconds_count', { route, method: 'GET', status_class: '2xx' })).to.equal(3);
      expect(valueOf(text, 'http_request_duration_seconds_count', { route, method: 'GET', status_class: '4xx' })).to.equal(1);
      expect(valueOf(text, 'http_request_duration_seconds_count', { route: 'unmatched', method: 'GET', status_class: '4xx' })).to.equal(1);
      // The mount path as declared: a path spelled in capitals is the same route.
      expect(valueOf(text, 'http_request_duration_seconds_count', { route: '/auth', method: 'GET', status_class: '2xx' })).to.equal(1);
      const routes = [...new Set(samples(text).flatMap((sample) => (sample.labels.route === undefined ? [] : [sample.labels.route])))];
      expect(routes.filter((label) => /\d|no-such-route|AUTH/.test(label))).to.deep.equal([]);
      for (const raw of [`/users/${first.id}`, `/users/${second.id}`, '/users/999999', 'no-such-route']) expect(text, raw).to.not.include(raw);
      // Each of those requests read its session, its user and the user shown.
      const statements = valueOf(text, 'site_db_statements_per_request_sum', { route });
      expect(valueOf(text, 'site_db_statements_per_request_count', { route })).to.equal(4);
      expect(statements).to.be.at.least(4 * 2);
    });

    it('counts SQL statements per request, the session lookup included, as the knex query events show them', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const user = await makeUser(ctx);
      const before = valueOf(await scrape(app), 'site_db_statements_per_request_sum', { route: '/app/api/users/:id' }) ?? 0;
      let seen = 0;
      const listener = () => seen++;
      ctx.db.on('query', listener);
      try {
        await request(app).get(`/app/api/users/${user.id}`).set('Cookie', admin.cookie).expect(200);
      } finally {
        ctx.db.removeListener('query', listener);
      }
      const after = valueOf(await scrape(app), 'site_db_statements_per_request_sum', { route: '/app/api/users/:id' });
      expect(after! - before).to.equal(seen);
    });

    it('shows the pool, the hashing queue and durations, rate-limit refusals, emails and the process metrics', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const user = await makeUser(ctx);
      // The logged-in API budget is three writes: the fourth is refused (before validation).
      for (let index = 0; index < 4; index++) await request(app).put(`/app/api/users/${user.id}`).set('Cookie', admin.cookie).send({ unknown: 1 });
      await ctx.hasher.hash('a password to hash');
      await ctx.mailer.invitation('invited-metrics@example.com', 'token-value');

      const text = await scrape(app);
      expect(valueOf(text, 'site_rate_limit_refusals_total', { operation: 'api' })).to.equal(1);
      expect(valueOf(text, 'site_password_hash_duration_seconds_count', { operation: 'hash' })).to.be.at.least(1);
      expect(valueOf(text, 'site_password_hash_queue_length')).to.equal(0);
      expect(valueOf(text, 'site_emails_sent_total', { template: 'invitation' })).to.be.at.least(1);
      expect(valueOf(text, 'site_db_pool_max')).to.equal(5);
      expect(valueOf(text, 'site_db_pool_connections', { state: 'in_use' })).to.be.a('number');
      expect(valueOf(text, 'site_db_pool_connections', { state: 'idle' })).to.be.at.least(1);
      expect(valueOf(text, 'site_db_pool_waiting')).to.equal(0);
      for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'process_cpu_user_seconds_total']) {
        expect(valueOf(text, name), name).to.be.a('number');
      }
      expect(text).to.include('nodejs_gc_duration_seconds');
    });

    it('names no gauge or histogram *_total, and passes `promtool check metrics` where promtool is installed', async function () {
      const text = await scrape(app);
      const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name, type]));
      const misnamed = [...types].filter(([name, type]) => name.endsWith('_total') && type !== 'counter').map(([name]) => name);
      expect(misnamed).to.deep.equal([]);
      // The per-type gauges stay (their sum is what the dropped totals said).
      expect(types.get('nodejs_active_handles')).to.equal('gauge');
      const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      if (promtool.error) {
        // Debian's `prometheus` package brings it (.ci/run installs it).
        console.log('      promtool is not installed: its check is skipped');
        return;
      }
      expect(promtool.stdout + promtool.stderr).to.equal('');
      expect(promtool.status).to.equal(0);
    });

    it('counts a failed email under its template', async () => {
      // Nothing listens on port 9 of the loopback: the connection is refused at once.
      const failing = createTestApp({ METRICS_TOKEN: TOKEN, SMTP_URL: 'smtp://127.0.0.1:9' });
      try {
        await contextOf(failing)
          .mailer.passwordReset('nobody@example.com', 'token-value')
          .then(
            () => expect.fail('the send should fail'),
            () => undefined,
          );
        const text = await scrape(failing);
        expect(valueOf(text, 'site_emails_failed_total', { template: 'password-reset' })).to.equal(1);
        expect(valueOf(text, 'site_emails_sent_total', { template: 'password-reset' })).to.equal(undefined);
      } finally {
        await closeTestApp(failing);
      }
    });

    it('keeps one registry per app: two apps in one process count only their own requests', async () => {
      const other = createTestApp({ METRICS_TOKEN: TOKEN });
      try {
        for (let index = 0; index < 3; index++) await request(other).get('/healthz').expect(200);
        const mine = await scrape(app);
        const theirs = await scrape(other);
        expect(valueOf(theirs, 'http_request_duration_seconds_count', { route: '/healthz', method: 'GET', status_class: '2xx' })).to.equal(3);
        expect(valueOf(mine, 'http_request_duration_seconds_count', { route: '/healthz', method: 'GET', status_class: '2xx' })).to.equal(undefined);
      } finally {
        await closeTestApp(other);
      }
    });
  });
});
