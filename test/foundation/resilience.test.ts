// @serial: spawns app processes and asserts durations (run at normal priority, the rest of the suite at nice 19 beside them: npm test, test/support/run.ts)
import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import request from 'supertest';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { SCHEDULE_CHECK_MS } from '../../services/scheduled-publishing.js';
import { adminQuery, testDatabase } from '../support/database.js';
import { spawnServer, waitForListening } from '../support/server-process.js';

describe('database outage', () => {
  let app: App;
  before(() => {
    app = createTestApp();
  });
  beforeEach(() => resetData(contextOf(app)));
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
      error: 'Le service est momentanément indisponible. Un nouvel essai sera possible dans un instant.',
      code: 'service_unavailable',
      request_id: json.headers['x-request-id'],
    });

    await adminQuery(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    await request(app).get('/auth').expect(200);
  });

  it('answers 503, then recovers, when every backend connection is killed mid-traffic', async () => {
    const name = testDatabase().name;
    const traffic = Array.from({ length: 30 }, (_, index) => new Promise((resolve) => setTimeout(resolve, index * 5)).then(() => request(app).get('/auth')));
    await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);
    const responses = await Promise.all(traffic);
    for (const response of responses) expect([200, 503]).to.include(response.status);
    await request(app).get('/auth').expect(200);
  });
});

describe('database outage, as the log shows it', () => {
  afterEach(() => adminQuery(`ALTER DATABASE "${testDatabase().name}" ALLOW_CONNECTIONS true`));

  it('logs one line per refused request, the outage once when it starts and once when it ends, and no stack', async function () {
    this.timeout(40_000);
    const server = await spawnServer(serverEnv());
    try {
      await waitForListening(server);
      const base = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${base}/auth`)).status).to.equal(200);
      const name = testDatabase().name;
      await adminQuery(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
      await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);
      const before = server.output().split('\n').length;
      for (let index = 0; index < 20; index++) expect((await fetch(`${base}/auth`)).status).to.equal(503);
      await adminQuery(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
      expect((await fetch(`${base}/auth`)).status).to.equal(200);
      // The server writes its lines through a buffer and the pipe delivers them when it
      // can: the recovery line and the last request's may follow the answers they describe.
      const deadline = Date.now() + 10_000;
      const refusedLines = () =>
        server
          .output()
          .split('\n')
          .slice(before - 1)
          .filter((line) => line.includes('"msg":"request"') && line.includes('"status":503')).length;
      while (!server.output().includes('database available again') || refusedLines() < 20) {
        if (Date.now() > deadline) throw new Error(`no recovery line or missing request lines:\n${server.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const lines = server
        .output()
        .split('\n')
        .slice(before - 1)
        .filter((line) => line.startsWith('{'));
      const records = lines.map((line) => JSON.parse(line) as { msg: string; status?: number; err?: unknown });
      expect(records.filter((record) => record.msg === 'request' && record.status === 503)).to.have.length(20);
      expect(records.filter((record) => record.msg.startsWith('database unavailable'))).to.have.length(1);
      expect(records.filter((record) => record.msg === 'database available again')).to.have.length(1);
      const stacks = lines.filter((line) => /\bat .*\.(ts|js):\d+/.test(line));
      expect(stacks, stacks.join('\n')).to.deep.equal([]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe('database outage, as the background work logs it', () => {
  afterEach(() => adminQuery(`ALTER DATABASE "${testDatabase().name}" ALLOW_CONNECTIONS true`));

  it('logs the outage once when the scheduler starts failing (every second) and once when it recovers, not a line per attempt', async function () {
    this.timeout(40_000);
    const server = await spawnServer(serverEnv());
    try {
      await waitForListening(server);
      const name = testDatabase().name;
      const before = server.output().split('\n').length;
      await adminQuery(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
      await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`);
      // No request meanwhile: only the scheduler's check (SCHEDULE_CHECK_MS) meets the outage, four times or more.
      await new Promise((resolve) => setTimeout(resolve, 4 * SCHEDULE_CHECK_MS + 500));
      await adminQuery(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
      const deadline = Date.now() + 10_000;
      while (!server.output().includes('database available again')) {
        if (Date.now() > deadline) throw new Error(`no recovery line:\n${server.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const records = server
        .output()
        .split('\n')
        .slice(before - 1)
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; level: number; by?: string });
      const outage = records.filter((record) => record.msg.startsWith('database unavailable'));
      expect(outage, server.output()).to.have.length(1);
      expect(outage[0].by).to.equal('scheduled publishing');
      expect(records.filter((record) => record.msg === 'database available again')).to.have.length(1);
      expect(records.filter((record) => record.msg === 'background task failed')).to.deep.equal([]);
      // Nothing else at error level: the outage's first line is the only one.
      expect(records.filter((record) => record.level >= 50)).to.have.length(1);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { DATABASE_URL: testDatabase().url, DATA_DIR: testDatabase().scratchDir, SESSION_SECRET: 'y'.repeat(40), PASSWORD_HASH_COST: '4', ...extra };
}

describe('start-up messages', () => {
  it('warns once at start that emails go to the outbox folder when SMTP_URL is unset', async function () {
    this.timeout(30_000);
    const server = await spawnServer(serverEnv());
    try {
      await waitForListening(server);
      const warnings = server
        .output()
        .split('\n')
        .filter((line) => line.includes('emails are written to the outbox folder'));
      expect(warnings).to.have.length(1);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe('start-up refusals', () => {
  it('exits 1 naming the port and PORT when the port is taken', async function () {
    this.timeout(30_000);
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const port = (squatter.address() as net.AddressInfo).port;
    try {
      const server = await spawnServer(serverEnv({ PORT: String(port) }));
      expect(await server.exited, server.output()).to.equal(1);
      expect(server.output()).to.include(`Port ${port}`).and.to.include('PORT');
      expect(server.output()).to.not.include('server listening');
    } finally {
      squatter.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('under keep-alive traffic exits 0 within seconds and truncates no answer', async function () {
    this.timeout(40_000);
    const server = await spawnServer(serverEnv());
    await waitForListening(server);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    let ok = 0;
    let cut = 0;
    let refused = 0;
    let retried = 0;
    const cutErrors: string[] = [];
    let signalledAt = 0;
    const get = () =>
      new Promise<void>((resolve) => {
        const req = http.get({ host: '127.0.0.1', port: server.port, path: '/auth', agent }, (res) => {
          res.resume();
          res.on('end', () => {
            ok++;
            resolve();
          });
        });
        let answered = false;
        req.on('response', () => (answered = true));
        req.on('error', (error: NodeJS.ErrnoException) => {
          // RFC 9112 §9.3.1: a server may close a connection it has not read a request
          // from (an idle keep-alive socket, a connection still in the accept backlog);
          // the client retries such a GET. A request is cut when its answer had begun, or
          // when the failure is anything but a reset or a refusal.
          if (!answered && error.code === 'ECONNRESET') retried++;
          else if (!answered && error.code === 'ECONNREFUSED') refused++;
          else {
            cut++;
            cutErrors.push(`${error.code} ${error.message} reused=${req.reusedSocket}`);
          }
          resolve();
        });
      });
    const clients = Array.from({ length: 8 }, async () => {
      const started = Date.now();
      while (Date.now() - started < 3000 && server.child.exitCode === null) await get();
    });
    setTimeout(() => {
      signalledAt = Date.now();
      server.child.kill('SIGTERM');
    }, 800);
    const code = await server.exited;
    const stopMs = Date.now() - signalledAt;
    await Promise.all(clients);
    agent.destroy();
    expect(code, server.output()).to.equal(0);
    expect(cut, `requests cut: ${cut}, answered: ${ok}, refused: ${refused}, closed before read (retriable): ${retried}; ${cutErrors.join('; ')}`).to.equal(0);
    expect(ok).to.be.greaterThan(10);
    expect(stopMs).to.be.lessThan(5000);
    expect(server.output()).to.not.include('shutdown took longer');
  });

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
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString()));
    const body = 'email=a%40b.c&password=x';
    socket.write(
      `POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
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
