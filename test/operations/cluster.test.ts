// @serial: spawns a cluster and counts which worker answers (a worker slow to listen under load gets no connection): run at normal priority, the rest of the suite at nice 19 beside them (npm test, test/support/run.ts)
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { hashThreadShares, restartDelay, RESTART_BACK_OFF } from '../../lib/cluster.js';
import { ConfigError, loadConfig, resolveConcurrency } from '../../lib/config.js';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { testDatabase } from '../support/database.js';
import { makeUser, PASSWORD } from '../support/fixtures.js';
import { spawnServer, waitForListening, type ServerProcess } from '../support/server-process.js';

describe('WEB_CONCURRENCY settings', () => {
  it('splits the hashing threads between the workers, the first ones taking the remainder, at least one each', () => {
    expect(hashThreadShares(1, 1)).to.deep.equal([1]);
    expect(hashThreadShares(3, 2)).to.deep.equal([2, 1]);
    expect(hashThreadShares(4, 2)).to.deep.equal([2, 2]);
    expect(hashThreadShares(7, 3)).to.deep.equal([3, 2, 2]);
    // Fewer threads than workers: one each (a worker without one could log nobody in).
    expect(hashThreadShares(1, 2)).to.deep.equal([1, 1]);
    expect(hashThreadShares(3, 8)).to.deep.equal([1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('keeps the whole cluster within the configured total whenever there are at least as many threads as workers', () => {
    for (let total = 1; total <= 16; total++) {
      for (let workers = 1; workers <= total; workers++) {
        const shares = hashThreadShares(total, workers);
        expect(
          shares.reduce((sum, share) => sum + share, 0),
          `${total} threads, ${workers} workers`,
        ).to.equal(total);
      }
    }
  });

  it('waits longer after each young death of a worker, up to a bound, and not at all after a long life', () => {
    expect(restartDelay(0)).to.equal(0);
    expect([1, 2, 3, 4].map((deaths) => restartDelay(deaths))).to.deep.equal([1000, 2000, 4000, 8000]);
    expect(restartDelay(30)).to.equal(RESTART_BACK_OFF.maxMs);
  });

  it('reads a number of processes or auto (the CPU cores, so one on a one-core machine)', () => {
    const base = { NODE_ENV: 'test', SESSION_SECRET: 'x'.repeat(40) };
    expect(loadConfig(base).webConcurrency).to.equal(1);
    expect(loadConfig({ ...base, WEB_CONCURRENCY: '3' }).webConcurrency).to.equal(3);
    expect(resolveConcurrency('auto', 1)).to.equal(1);
    expect(resolveConcurrency('auto', 6)).to.equal(6);
    expect(loadConfig({ ...base, WEB_CONCURRENCY: 'auto' }).webConcurrency).to.be.at.least(1);
  });

  it('stops the start naming WEB_CONCURRENCY when it is neither a process count nor auto', () => {
    for (const value of ['0', '-1', '2.5', 'many', '65']) {
      const error = (() => {
        try {
          loadConfig({ NODE_ENV: 'test', SESSION_SECRET: 'x'.repeat(40), WEB_CONCURRENCY: value });
        } catch (caught) {
          return caught;
        }
      })();
      expect(error, value).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.include('"WEB_CONCURRENCY" must be a number of processes from 1 to 64, or "auto"');
    }
  });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request through `agent` (one keep-alive socket, hence one worker). */
function send(agent: http.Agent | false, port: number, method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function cookieOf(answer: Answer, name: string): string | undefined {
  for (const line of answer.headers['set-cookie'] ?? []) {
    if (line.startsWith(`${name}=`)) return line.split(';')[0];
  }
  return undefined;
}

function hidden(html: string, name: string): string {
  const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  if (value === undefined) throw new Error(`no hidden field ${name}`);
  return value;
}

function logLines(server: ServerProcess): Record<string, unknown>[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function waitFor<T>(what: string, server: ServerProcess, find: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in time:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The nice value of one thread (field 19 of /proc/<pid>/task/<tid>/stat), or undefined once it is gone. */
function threadNice(pid: number, tid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return undefined;
  }
}

/** How many threads of a process run at this nice value. */
function nicedThreads(pid: number, nice: number): number {
  return readdirSync(`/proc/${pid}/task`).filter((tid) => threadNice(pid, Number(tid)) === nice).length;
}

/** The worker pid that served an answer: its request line carries the same request id. */
function servedBy(server: ServerProcess, answer: Answer): Promise<number> {
  const id = answer.headers['x-request-id'];
  return waitFor(`the request line of ${String(id)}`, server, () => logLines(server).find((line) => line.requestId === id)?.pid as number | undefined);
}

describe('several processes on one host (WEB_CONCURRENCY=2, development, no SESSION_SECRET)', function () {
  this.timeout(60_000);
  let server: ServerProcess;
  let dataDir: string;
  let email: string;
  let ctx: AppContext;

  before(async () => {
    ctx = contextOf(createTestApp());
    await resetData(ctx);
    email = (await makeUser(ctx, { name: 'Ada Cluster' })).email;
    dataDir = mkdtempSync(path.join(testDatabase().scratchDir, 'cluster-'));
    server = await spawnServer({
      NODE_ENV: 'development',
      WEB_CONCURRENCY: '2',
      PASSWORD_HASH_THREADS: '3',
      DATABASE_URL: testDatabase().url,
      DATA_DIR: dataDir,
      PASSWORD_HASH_COST: '4',
    });
    await waitForListening(server, 45_000);
  });

  after(() => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  });

  const listening = () => logLines(server).find((line) => line.msg === 'server listening')!;

  it('starts two workers with their share of the hashing threads, and spreads connections over both', async () => {
    expect(listening()).to.include({ primary: true, workers: 2 });
    expect(listening().hashThreads).to.deep.equal([2, 1]);
    const workerPids = listening().workerPids as number[];
    expect(new Set(workerPids).size).to.equal(2);
    expect(workerPids).not.to.include(server.child.pid);

    const pids = new Set<number>();
    for (let attempt = 0; attempt < 6; attempt++) {
      const answer = await send(false, server.port, 'GET', '/auth/login');
      expect(answer.status).to.equal(200);
      pids.add(await servedBy(server, answer));
    }
    expect([...pids].sort()).to.deep.equal([...workerPids].sort());
  });

  it('generates the secret once, and a login and its forms made through one worker are valid on the other', async () => {
    const secretFile = path.join(dataDir, 'session-secret');
    expect(existsSync(secretFile)).to.equal(true);
    const secret = readFileSync(secretFile, 'utf8').trim();
    expect(secret).to.match(/^[A-Za-z0-9_-]{64}$/);

    // Two sockets held open, each served by one worker, different ones.
    const first = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const agents: http.Agent[] = [first];
    let other: http.Agent | undefined;
    const page = await send(first, server.port, 'GET', '/auth/login');
    const firstPid = await servedBy(server, page);
    for (let attempt = 0; attempt < 6 && !other; attempt++) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      if ((await servedBy(server, await send(agent, server.port, 'GET', '/auth/login'))) !== firstPid) other = agent;
    }
    try {
      expect(other, 'a second worker').not.to.equal(undefined);
      const second = other!;

      // The form rendered by the first worker is posted to the second: its CSRF token
      // (signed with the secret) is accepted there. The anti-bot stamp is signed with
      // the file's secret and dated 2 s ago, as if the visitor had waited.
      const csrfCookie = cookieOf(page, 'site.csrf')!;
      const renderedAt = String(Date.now() - 2000);
      const stamp = `${renderedAt}.${createHmac('sha256', secret).update(`form-time:${renderedAt}`).digest('base64url')}`;
      const form = new URLSearchParams({ _csrf: hidden(page.body, '_csrf'), _t: stamp, _hp: '', email, password: PASSWORD });
      const login = await send(
        second,
        server.port,
        'POST',
        '/auth/login',
        { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: csrfCookie },
        form.toString(),
      );
      expect(login.status, login.body).to.equal(303);
      expect(login.headers.location).to.equal('/account');
      const secondPid = await servedBy(server, login);
      expect(secondPid).not.to.equal(firstPid);
      const sessionCookie = cookieOf(login, 'site.sid')!;
      expect(sessionCookie).to.be.a('string');

      // The session opened by the second worker is read by the first.
      const cookies = `${csrfCookie}; ${sessionCookie}`;
      const account = await send(first, server.port, 'GET', '/account', { Cookie: cookies });
      expect(account.status).to.equal(200);
      expect(account.body).to.include('Ada Cluster');
      expect(await servedBy(server, account)).to.equal(firstPid);

      // A token bound to that session, minted by the first, is accepted by the second.
      const logout = await send(
        second,
        server.port,
        'POST',
        '/auth/logout',
        { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookies },
        `_csrf=${encodeURIComponent(hidden(account.body, '_csrf'))}`,
      );
      expect(logout.status).to.equal(303);
      expect(logout.headers.location).to.equal('/auth/login?done=logout');
      expect(await servedBy(server, logout)).to.equal(secondPid);
      const after = await send(first, server.port, 'GET', '/account', { Cookie: cookies });
      expect(after.status).to.equal(303);

      // Nothing rewrote the file: the workers took the primary's secret, not one of their own.
      expect(readFileSync(secretFile, 'utf8').trim()).to.equal(secret);
      const sessions = await ctx.db('app_auth_sessions').count<{ count: string }[]>('* as count');
      expect(Number(sessions[0].count)).to.equal(0);
    } finally {
      for (const agent of agents) agent.destroy();
    }
  });

  it('gives each worker its share of the hashing threads, every one niced to 19 (PASSWORD_HASH_NICE default)', async function () {
    if (process.platform !== 'linux' || os.getPriority() >= 19) this.skip();
    const workerPids = listening().workerPids as number[];
    const shares = listening().hashThreads as number[];
    const secret = readFileSync(path.join(dataDir, 'session-secret'), 'utf8').trim();
    // A wrong password through each worker: its pool starts and verifies a hash.
    const hashed = new Set<number>();
    const agents: http.Agent[] = [];
    try {
      for (let attempt = 0; attempt < 12 && hashed.size < 2; attempt++) {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        agents.push(agent);
        const page = await send(agent, server.port, 'GET', '/auth/login');
        const pid = await servedBy(server, page);
        if (hashed.has(pid)) continue;
        const renderedAt = String(Date.now() - 2000);
        const stamp = `${renderedAt}.${createHmac('sha256', secret).update(`form-time:${renderedAt}`).digest('base64url')}`;
        const form = new URLSearchParams({ _csrf: hidden(page.body, '_csrf'), _t: stamp, _hp: '', email, password: 'not the password' });
        const login = await send(
          agent,
          server.port,
          'POST',
          '/auth/login',
          { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookieOf(page, 'site.csrf')! },
          form.toString(),
        );
        expect(login.status, login.body).to.equal(401);
        expect(await servedBy(server, login)).to.equal(pid);
        hashed.add(pid);
      }
    } finally {
      for (const agent of agents) agent.destroy();
    }
    expect([...hashed].sort()).to.deep.equal([...workerPids].sort());
    for (const [index, pid] of workerPids.entries()) {
      // The threads renice themselves as they start: wait for them (the test's own time limit bounds it).
      while (nicedThreads(pid, 19) < shares[index]) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(nicedThreads(pid, 19), `worker ${pid}`).to.equal(shares[index]);
      expect(threadNice(pid, pid), `the event loop of worker ${pid}`).to.equal(os.getPriority());
    }
  });

  it('replaces a worker killed with SIGKILL, and requests keep succeeding meanwhile', async () => {
    const [victim, survivor] = listening().workerPids as number[];
    process.kill(victim, 'SIGKILL');
    const exited = await waitFor('the exit of the killed worker', server, () =>
      logLines(server).find((line) => line.msg === 'worker exited: starting another' && line.workerPid === victim),
    );
    expect(exited).to.include({ signal: 'SIGKILL' });
    // Young (under 30 s), it waits the first step of the back-off; older, it is replaced at once.
    expect(exited.restartInMs).to.equal((exited.livedMs as number) < RESTART_BACK_OFF.stableMs ? RESTART_BACK_OFF.firstMs : 0);

    // Until the replacement listens, new connections go to the survivor.
    const served: number[] = [];
    const replaced = () => logLines(server).find((line) => line.msg === 'worker replaced');
    while (!replaced()) {
      const answer = await send(false, server.port, 'GET', '/auth/login');
      expect(answer.status).to.equal(200);
      served.push(await servedBy(server, answer));
      if (served.length > 400) throw new Error(`no replacement:\n${server.output()}`);
    }
    const newcomer = replaced()!.workerPid as number;
    expect([victim, survivor]).not.to.include(newcomer);
    // (The newcomer may take a connection in the instant between its listen and its announcement.)
    expect(served.filter((pid) => pid === survivor).length).to.be.greaterThan(0);
    expect(served.filter((pid) => pid !== survivor && pid !== newcomer)).to.deep.equal([]);
    const pids = new Set<number>();
    for (let attempt = 0; attempt < 6; attempt++) {
      const answer = await send(false, server.port, 'GET', '/auth/login');
      expect(answer.status).to.equal(200);
      pids.add(await servedBy(server, answer));
    }
    expect([...pids].sort()).to.deep.equal([survivor, newcomer].sort());
  });

  it('on SIGTERM under keep-alive load stops the workers one by one: every request read is answered, exit code 0', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const tally = { answered: 0, answeredAfterSignal: 0, cut: 0, resetUnread: 0, refused: 0, statuses: new Set<number>() };
    let signalled = false;
    let running = true;
    const get = () =>
      new Promise<void>((resolve) => {
        let answered = false;
        const req = http.get({ host: '127.0.0.1', port: server.port, path: '/auth/login', agent }, (res) => {
          answered = true;
          res.resume();
          res.on('end', () => {
            tally.answered++;
            tally.statuses.add(res.statusCode ?? 0);
            if (signalled) tally.answeredAfterSignal++;
            resolve();
          });
          res.on('error', () => {
            tally.cut++;
            resolve();
          });
        });
        req.on('error', (error: NodeJS.ErrnoException) => {
          // A reset before any byte of an answer, or a refused connection, is a request the
          // server never read (RFC 9112 §9.3.1: safe to retry); anything else is a failure.
          if (!answered && error.code === 'ECONNRESET') tally.resetUnread++;
          else if (!answered && error.code === 'ECONNREFUSED') tally.refused++;
          else tally.cut++;
          resolve();
        });
      });
    const clients = Array.from({ length: 8 }, async () => {
      while (running) await get();
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    signalled = true;
    server.child.kill('SIGTERM');
    const code = await server.exited;
    running = false;
    await Promise.all(clients);
    agent.destroy();

    expect(code).to.equal(0);
    expect(tally.cut, JSON.stringify(tally)).to.equal(0);
    expect([...tally.statuses]).to.deep.equal([200]);
    expect(tally.answeredAfterSignal).to.be.greaterThan(0);
    // One by one: the second worker began its stop only after the first had stopped.
    const lines = logLines(server);
    const stopped = lines.filter((line) => line.msg === 'stopped' && line.worker !== undefined).map((line) => lines.indexOf(line));
    const began = lines.filter((line) => line.msg === 'shutting down: finishing requests in flight').map((line) => lines.indexOf(line));
    expect(stopped).to.have.length(2);
    expect(began).to.have.length(2);
    expect(began[1]).to.be.greaterThan(stopped[0]);
    expect(lines.at(-1)).to.include({ primary: true, msg: 'stopped' });
  });
});
