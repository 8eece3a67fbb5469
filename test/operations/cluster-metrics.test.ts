// @apart: spawns app processes, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
// /metrics under WEB_CONCURRENCY=2: whichever worker takes the scrape answers with the
// sum of both workers' metrics, gathered by the primary (lib/cluster-metrics.ts).
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { testDatabase } from '../support/database.js';
import { spawnServer, waitForListening, type ServerProcess } from '../support/server-process.js';

const TOKEN = 'cluster-metrics-token-0123456789-abcdefgh';

interface Answer {
  status: number;
  requestId: string;
  body: string;
}

/** One request on a connection of its own (the primary hands connections to the workers in turn). */
function get(port: number, target: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target, agent: false, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id']), body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function logLines(server: ServerProcess): Array<Record<string, unknown>> {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The pid of the worker that answered: its request line (debug for probes and scrapes) carries the request id. */
async function servedBy(server: ServerProcess, answer: Answer): Promise<number> {
  for (;;) {
    const pid = logLines(server).find((line) => line.requestId === answer.requestId)?.pid;
    if (typeof pid === 'number') return pid;
    if (server.child.exitCode !== null) throw new Error(`the server exited:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The value of the sample with this name and exactly these labels, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = `${name}{${Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .join(',')}}`;
  const line = text.split('\n').find((each) => each.startsWith(`${wanted} `));
  return line === undefined ? undefined : Number(line.slice(wanted.length + 1));
}

describe('GET /metrics with WEB_CONCURRENCY=2', function () {
  this.timeout(60_000);
  let server: ServerProcess;

  before(async () => {
    await resetData(contextOf(createTestApp()));
    server = await spawnServer({
      WEB_CONCURRENCY: '2',
      METRICS_TOKEN: TOKEN,
      DATABASE_URL: testDatabase().url,
      DATA_DIR: mkdtempSync(path.join(testDatabase().scratchDir, 'cluster-metrics-')),
      SESSION_SECRET: 'm'.repeat(40),
      PASSWORD_HASH_COST: '4',
      LOG_LEVEL: 'debug',
    });
    await waitForListening(server, 45_000);
  });

  after(() => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('answers from either worker with the sum of both workers’ counters and histograms', async () => {
    const workerPids = logLines(server).find((line) => line.msg === 'server listening')!.workerPids as number[];
    expect(workerPids).to.have.length(2);

    const served = new Map<number, number>();
    for (let index = 0; index < 8; index++) {
      const answer = await get(server.port, '/healthz');
      expect(answer.status).to.equal(200);
      const pid = await servedBy(server, answer);
      served.set(pid, (served.get(pid) ?? 0) + 1);
    }
    // Both workers served some of them: neither alone has counted eight.
    expect([...served.keys()].sort()).to.deep.equal([...workerPids].sort());

    const scrapedBy = new Set<number>();
    for (let attempt = 0; attempt < 8 && scrapedBy.size < 2; attempt++) {
      const scrape = await get(server.port, '/metrics', { Authorization: `Bearer ${TOKEN}` });
      expect(scrape.status).to.equal(200);
      scrapedBy.add(await servedBy(server, scrape));
      expect(sample(scrape.body, 'http_request_duration_seconds_count', { route: '/healthz', method: 'GET', status_class: '2xx' })).to.equal(8);
      expect(sample(scrape.body, 'http_request_duration_seconds_bucket', { le: '+Inf', route: '/healthz', method: 'GET', status_class: '2xx' })).to.equal(8);
      expect(sample(scrape.body, 'site_metrics_workers', { state: 'answered' })).to.equal(2);
      expect(sample(scrape.body, 'site_metrics_workers', { state: 'missing' })).to.equal(0);
      // A gauge is summed too: two pools of DATABASE_POOL_MAX (10 by default).
      expect(scrape.body).to.match(/^site_db_pool_max 20$/m);
    }
    expect([...scrapedBy].sort(), 'the scrapes were taken by both workers').to.deep.equal([...workerPids].sort());
  });

  it('still refuses a scrape without the token, in any worker', async () => {
    for (let index = 0; index < 2; index++) {
      const answer = await get(server.port, '/metrics', { Authorization: 'Bearer wrong-token' });
      expect(answer.status).to.equal(401);
      expect(answer.body).not.to.include('site_metrics_workers');
    }
  });
});
