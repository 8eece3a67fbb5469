import { expect } from 'chai';
import request from 'supertest';
import { createKnex } from '../../lib/db.js';
import { createLogger } from '../../lib/logger.js';
import { migrateLatest } from '../../lib/migrations.js';
import { testMigrationDirectories } from '../support/modules.js';
import { closeTestApp, contextOf, createTestApp, type App } from '../support/app.js';
import { adminQuery, createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';

/** Waits (5 s at most) until the public cache's listening connection is in `state`. */
async function listenerIs(app: App, state: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (contextOf(app).publicCache.listenerState !== state && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

const READY = { status: 'ok', checks: { server: 'ok', database: 'ok', migrations: 'ok', cacheListener: 'listening' } };

describe('GET /healthz and GET /readyz', () => {
  let app: App;
  before(() => {
    app = createTestApp();
  });
  afterEach(() => adminQuery(`ALTER DATABASE "${testDatabase().name}" ALLOW_CONNECTIONS true`));

  it('answers 200 {status: "ok"} for liveness and readiness, never cached, without a session cookie', async () => {
    // A new app connects its listener in the background: readiness is asked once it listens.
    await listenerIs(app, 'listening');
    for (const [path, body] of [
      ['/healthz', { status: 'ok' }],
      ['/readyz', READY],
    ] as const) {
      const response = await request(app).get(path);
      expect(response.status, path).to.equal(200);
      expect(response.body, path).to.deep.equal(body);
      expect(response.headers['cache-control'], path).to.equal('no-store');
      expect(response.headers['set-cookie'], path).to.equal(undefined);
    }
  });

  it('answers a balancer that names the instance by its address, which the site itself refuses (421)', async () => {
    await request(app).get('/healthz').set('Host', '10.1.2.3:3000').expect(200);
    await request(app).get('/readyz').set('Host', '10.1.2.3:3000').expect(200);
    await request(app).get('/auth').set('Host', '10.1.2.3:3000').expect(421);
  });

  it('turns /readyz 503 naming the database while connections are refused, /healthz staying 200, and 200 again after', async () => {
    await request(app).get('/readyz').expect(200);
    const name = testDatabase().name;
    await adminQuery(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);
    await listenerIs(app, 'reconnecting');

    const down = await request(app).get('/readyz');
    expect(down.status).to.equal(503);
    expect(down.body).to.deep.equal({
      status: 'unavailable',
      checks: { server: 'ok', database: 'unavailable', migrations: 'unknown', cacheListener: 'reconnecting' },
    });
    expect(down.text).to.not.match(/does not accept connections|terminat/i);
    await request(app).get('/healthz').expect(200);

    await adminQuery(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    const up = await request(app).get('/readyz');
    expect(up.status).to.equal(200);
    // Ready while the cache's listener still reconnects (reads bypass the cache meanwhile).
    expect(up.body.status).to.equal('ok');
    expect(up.body.checks).to.include({ server: 'ok', database: 'ok', migrations: 'ok' });
    expect(['listening', 'reconnecting']).to.include(up.body.checks.cacheListener);
    await listenerIs(app, 'listening');
    expect((await request(app).get('/readyz')).body).to.deep.equal(READY);
  });

  it('answers 503 "timeout" within about a second when no connection of the pool is free', async function () {
    this.timeout(15_000);
    const busy = createTestApp({ DATABASE_POOL_MAX: '1' });
    const ctx = contextOf(busy);
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      // The pool's only connection stays lent to a transaction until released.
      const transaction = ctx.db.transaction(async (trx) => {
        await trx.raw('SELECT 1');
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      const response = await request(busy).get('/readyz');
      const elapsed = Date.now() - started;
      release();
      await transaction;
      expect(response.status).to.equal(503);
      expect(response.body.checks).to.deep.equal({ server: 'ok', database: 'timeout', migrations: 'unknown', cacheListener: 'listening' });
      expect(elapsed).to.be.within(900, 3000);
      await request(busy).get('/readyz').expect(200);
    } finally {
      await closeTestApp(busy);
    }
  });
});

describe('GET /readyz with a migration pending', () => {
  const name = `site_ops_pending_${process.pid}`;
  let app: App;
  before(async () => {
    const url = await createScratchDatabase(testDatabase().adminUrl, name);
    const knex = createKnex(url, { poolMax: 2, logger: createLogger('warn') });
    try {
      await migrateLatest(knex, { directories: testMigrationDirectories() });
      // As after a rollback of the newest migration (or a deploy that brought a new one).
      await knex('knex_migrations').where('id', knex('knex_migrations').max('id')).delete();
    } finally {
      await knex.destroy();
    }
    app = createTestApp({ DATABASE_URL: url });
  });
  after(async () => {
    await closeTestApp(app);
    await dropScratchDatabase(testDatabase().adminUrl, name);
  });

  it('answers 503 naming the migrations, the database itself answering', async () => {
    await listenerIs(app, 'listening');
    const response = await request(app).get('/readyz');
    expect(response.status).to.equal(503);
    expect(response.body).to.deep.equal({ status: 'unavailable', checks: { server: 'ok', database: 'ok', migrations: 'pending', cacheListener: 'listening' } });
    await request(app).get('/healthz').expect(200);
  });
});
