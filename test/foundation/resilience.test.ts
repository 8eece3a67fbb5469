import net from 'node:net';
import { expect } from 'chai';
import pg from 'pg';
import request from 'supertest';
import type { Express } from 'express';
import { createTestApp, resetData } from '../support/app.js';
import { testDatabase } from '../support/database.js';
import { spawnServer, waitForListening } from '../support/server-process.js';

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabase().adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('database outage', () => {
  let app: Express;
  before(() => {
    app = createTestApp();
  });
  beforeEach(resetData);
  afterEach(() => adminQuery(`ALTER DATABASE "${testDatabase().name}" ALLOW_CONNECTIONS true`));

  it('answers 503 while the database is gone, survives, and recovers without a restart', async () => {
    await request(app).get('/auth').expect(200);
    const name = testDatabase().name;
    await adminQuery(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);

    const page = await request(app).get('/auth');
    expect(page.status).to.equal(503);
    expect(page.text).to.include('Le service est momentanément indisponible');
    expect(page.text).to.not.match(/at .*\.(ts|js):\d+/);
    const json = await request(app).get('/auth').set('Accept', 'application/json');
    expect(json.status).to.equal(503);
    expect(json.body).to.deep.equal({
      error: 'Le service est momentanément indisponible. Réessayez dans un instant.',
      code: 'service_unavailable',
      request_id: json.headers['x-request-id'],
    });

    await adminQuery(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    await request(app).get('/auth').expect(200);
  });

  it('answers 503, then recovers, when every backend connection is killed mid-traffic', async () => {
    const name = testDatabase().name;
    const traffic = Array.from({ length: 30 }, (_, index) =>
      new Promise((resolve) => setTimeout(resolve, index * 5)).then(() => request(app).get('/auth')),
    );
    await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);
    const responses = await Promise.all(traffic);
    for (const response of responses) expect([200, 503]).to.include(response.status);
    await request(app).get('/auth').expect(200);
  });
});

describe('graceful shutdown', () => {
  it('finishes a request in flight on SIGTERM, then exits 0', async function () {
    this.timeout(40_000);
    const server = await spawnServer({
      DATABASE_URL: testDatabase().url,
      DATA_DIR: testDatabase().scratchDir,
      SESSION_SECRET: 'y'.repeat(40),
      PASSWORD_HASH_COST: '4',
    });
    await waitForListening(server);

    // A request whose body is still arriving: in flight when the signal lands.
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let reply = '';
    socket.on('data', (chunk) => (reply += chunk));
    const body = 'email=a%40b.c&password=x';
    socket.write(`POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
    socket.write(body.slice(0, 5));
    await new Promise((resolve) => setTimeout(resolve, 200));

    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // No new connection is accepted once shutdown has begun.
    const refused = await new Promise<boolean>((resolve) => {
      const probe = net.connect(server.port, '127.0.0.1');
      probe.once('connect', () => {
        probe.destroy();
        resolve(false);
      });
      probe.once('error', () => resolve(true));
    });
    expect(refused, 'a new connection was accepted during shutdown').to.equal(true);

    socket.write(body.slice(5));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(reply).to.match(/^HTTP\/1\.1 \d{3} /);
    expect(await server.exited, server.output()).to.equal(0);
    expect(server.output()).to.include('stopped');
  });
});
