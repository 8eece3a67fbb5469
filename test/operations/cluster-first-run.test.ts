// @apart: spawns app processes, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { expect } from 'chai';
import { createKnex } from '../../lib/db.js';
import { createLogger } from '../../lib/logger.js';
import { migrateLatest } from '../../lib/migrations.js';
import { siteMigrationDirectories } from '../../routes/site-modules.js';
import { createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';
import { spawnServer, waitForListening } from '../support/server-process.js';

/** GET or POST through `agent`; the pid of the worker that answered comes from its request line. */
function send(agent: http.Agent, port: number, method: string, target: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the first-run setup code in a cluster', function () {
  this.timeout(60_000);

  it('is printed once, by the first worker, and accepted by the other worker', async () => {
    const { adminUrl, scratchDir } = testDatabase();
    const name = `site_cluster_first_run_${process.pid}`;
    const url = await createScratchDatabase(adminUrl, name);
    const knex = createKnex(url, { poolMax: 2, logger: createLogger('silent') });
    await migrateLatest(knex, { directories: siteMigrationDirectories() }).finally(() => knex.destroy());
    const secret = 'f'.repeat(40);
    const server = await spawnServer({
      WEB_CONCURRENCY: '2',
      HOST: '0.0.0.0',
      DATABASE_URL: url,
      DATA_DIR: scratchDir,
      SESSION_SECRET: secret,
      PASSWORD_HASH_COST: '4',
    });
    const agents: http.Agent[] = [];
    try {
      await waitForListening(server, 45_000);
      const lines = () =>
        server
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      const deadline = Date.now() + 10_000;
      while (!lines().some((line) => line.setupCode) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const printed = lines().filter((line) => line.setupCode);
      expect(printed).to.have.length(1);
      expect(printed[0].worker).to.equal(1);
      const setupCode = printed[0].setupCode as string;

      // A connection held by the worker that did not print the code.
      let page: Awaited<ReturnType<typeof send>> | undefined;
      let agent: http.Agent | undefined;
      for (let attempt = 0; attempt < 8 && !agent; attempt++) {
        const candidate = new http.Agent({ keepAlive: true, maxSockets: 1 });
        agents.push(candidate);
        const answer = await send(candidate, server.port, 'GET', '/auth');
        let pid: unknown;
        while (pid === undefined && Date.now() < deadline + 10_000) {
          pid = lines().find((line) => line.requestId === answer.headers['x-request-id'])?.pid;
          if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
        }
        if (pid !== printed[0].pid) [page, agent] = [answer, candidate];
      }
      expect(agent, 'the second worker').not.to.equal(undefined);
      expect(page!.body).to.include('name="setupCode"');

      const renderedAt = String(Date.now() - 2000);
      const stamp = `${renderedAt}.${createHmac('sha256', secret).update(`form-time:${renderedAt}`).digest('base64url')}`;
      const csrf = /name="_csrf" value="([^"]*)"/.exec(page!.body)![1];
      const cookie = (page!.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).join('; ');
      const form = new URLSearchParams({
        _csrf: csrf,
        _t: stamp,
        _hp: '',
        name: 'Ada',
        email: 'ada@example.com',
        password: 'correct horse battery',
        setupCode,
      });
      const created = await send(
        agent!,
        server.port,
        'POST',
        '/auth',
        { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
        form.toString(),
      );
      expect(created.status, created.body).to.equal(303);
      expect(created.headers.location).to.equal('/admin');
      const check = createKnex(url, { poolMax: 1, logger: createLogger('silent') });
      const users = await check('app_auth_users')
        .select('email')
        .finally(() => check.destroy());
      expect(users).to.deep.equal([{ email: 'ada@example.com' }]);
    } finally {
      for (const each of agents) each.destroy();
      server.child.kill('SIGTERM');
      await server.exited;
      await dropScratchDatabase(adminUrl, name);
    }
  });
});
