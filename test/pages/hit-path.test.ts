// The hit path (lib/public-hits.ts) answers exactly as the general pipeline does: a
// table of requests (hits, misses, 304s, HEAD, foreign hosts, odd and encoded paths,
// query strings, a trusted proxy's headers) sent to two listening apps on one database,
// one with the hit path and one without (PUBLIC_HIT_PATH=0), both in production mode
// behind a trusted loopback proxy; status, headers (minus Date and X-Request-Id) and
// body must be the same byte for byte (an error page's request id masked), and so must
// the request metrics.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import type { AppContext } from '../../lib/context.js';
import { updatePage } from '../../models/pages/pages.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { listening, makeChain, makePage, notified, settled } from './helpers.js';

const TOKEN = 'metrics-token-0123456789-abcdefghijklmnop';
// Per request or per connection: never compared.
const UNCOMPARED = new Set(['date', 'x-request-id', 'keep-alive', 'connection']);

interface Answer {
  status: number;
  /** [name as sent, value], in the order sent. */
  headers: Array<[string, string]>;
  body: Buffer;
}

interface Row {
  title: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** True when the app with the hit path must answer it there (not through Express). */
  hit?: boolean;
  status: number;
}

function send(port: number, row: Row): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method: row.method ?? 'GET', path: row.path, headers: { Host: 'site.test', ...row.headers }, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          // An error page shows its request id (and its weak ETag hashes it): masked.
          const requestId = String(response.headers['x-request-id']);
          const text = Buffer.concat(chunks).toString('latin1');
          const showsId = text.includes(requestId);
          const headers: Array<[string, string]> = [];
          for (let index = 0; index < response.rawHeaders.length; index += 2) {
            const name = response.rawHeaders[index].toLowerCase();
            if (UNCOMPARED.has(name) || (showsId && name === 'etag')) continue;
            headers.push([response.rawHeaders[index], response.rawHeaders[index + 1]]);
          }
          resolve({ status: response.statusCode!, headers, body: Buffer.from(text.replaceAll(requestId, '<request id>'), 'latin1') });
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

function listen(app: App): Promise<http.Server> {
  return new Promise((resolve) => {
    const server = http.createServer(app).listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** Collects the request log lines `ctx`'s logger writes from now on (level, method, path, status). */
function requestLog(ctx: AppContext): { lines: () => unknown[]; stop: () => void } {
  const streamKey = pino.symbols.streamSym as unknown as 'stream';
  const logger = ctx.logger as unknown as Record<'stream', unknown>;
  const original = logger[streamKey];
  let text = '';
  logger[streamKey] = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return {
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { msg: string; level: number; method: string; path: string; status: number; requestId: string; durationMs: number })
        .filter((line) => line.msg === 'request')
        .map(({ level, method, path, status, requestId, durationMs }) => ({
          level,
          method,
          path,
          status,
          hasId: requestId.length === 36,
          timed: durationMs >= 0,
        })),
    stop: () => void (logger[streamKey] = original),
  };
}

/** The request-duration series of a metrics scrape, as `route method status_class → count`. */
async function requestCounts(port: number): Promise<Record<string, number>> {
  const text = await new Promise<string>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/metrics', headers: { Authorization: `Bearer ${TOKEN}` }, agent: false }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm)) counts[match[1]] = Number(match[2]);
  return counts;
}

describe('the hit path answers as the general pipeline does', () => {
  let withHits: App;
  let without: App;
  let a: AppContext;
  let b: AppContext;
  let servers: http.Server[] = [];
  let ports: { hits: number; pipeline: number };
  let logs: Record<'hits' | 'pipeline', ReturnType<typeof requestLog>>;
  let etag = '';
  let lastModified = '';

  before(async () => {
    const env = {
      NODE_ENV: 'production',
      PASSWORD_HASH_COST: '11',
      MAIL_OUTBOX: 'true',
      APP_TRUST_PROXY: 'loopback',
      METRICS_TOKEN: TOKEN,
      LOG_LEVEL: 'debug',
    };
    withHits = createTestApp(env);
    without = createTestApp({ ...env, PUBLIC_HIT_PATH: '0' });
    a = contextOf(withHits);
    b = contextOf(without);
    logs = { hits: requestLog(a), pipeline: requestLog(b) };
    expect(a.publicHits).to.not.equal(undefined);
    expect(b.publicHits).to.equal(undefined);
    await Promise.all([listening(a), listening(b)]);
    await notified(b, () => resetData(a));
    await makePage(a, { title: 'Accueil', slug: 'accueil' });
    await makeChain(a, 5, 'p');
    await makePage(a, { title: 'Privée', slug: 'prive', visibility: 'private' });
    const moved = await makePage(a, { title: 'Ancienne adresse', slug: 'ancien' });
    await notified(b, () => updatePage(a, moved.id, { slug: 'nouveau' }));
    await settled(a);
    servers = await Promise.all([listen(withHits), listen(without)]);
    ports = { hits: (servers[0].address() as AddressInfo).port, pipeline: (servers[1].address() as AddressInfo).port };
    const first = await send(ports.pipeline, { title: '', path: '/p1', status: 200 });
    etag = first.headers.find(([name]) => name.toLowerCase() === 'etag')![1];
    lastModified = first.headers.find(([name]) => name.toLowerCase() === 'last-modified')![1];
  });

  after(async () => {
    logs.hits.stop();
    logs.pipeline.stop();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  const deep = '/p1/p2/p3/p4/p5';
  const byPath = '/app/api/pages/by-path?path=p1/p2/p3';
  const rows = (): Row[] => [
    { title: 'the home page', path: '/', hit: true, status: 200 },
    { title: 'a root page', path: '/p1', hit: true, status: 200 },
    { title: 'a page at depth 5', path: deep, hit: true, status: 200 },
    { title: 'HEAD of a page', method: 'HEAD', path: deep, hit: true, status: 200 },
    { title: 'a page with a query string', path: `${deep}?utm_source=lettre`, hit: true, status: 200 },
    { title: 'a page with an empty query string', path: '/p1?', hit: true, status: 200 },
    { title: 'by-path', path: byPath, hit: true, status: 200 },
    { title: 'HEAD of by-path', method: 'HEAD', path: byPath, hit: true, status: 200 },
    { title: 'by-path with slashes around the path', path: '/app/api/pages/by-path?path=/p1/p2/p3/', hit: true, status: 200 },
    { title: 'the root list', path: '/app/api/pages?parent=root', hit: true, status: 200 },
    { title: 'a child list by path', path: '/app/api/pages?parent=p1&limit=5', hit: true, status: 200 },
    { title: 'the sitemap index', path: '/sitemap.xml', hit: true, status: 200 },
    { title: 'a sitemap file', path: '/sitemap-1.xml', hit: true, status: 200 },
    { title: 'an old address (301)', path: '/ancien', hit: true, status: 301 },
    { title: 'HEAD of an old address', method: 'HEAD', path: '/ancien', hit: true, status: 301 },
    { title: 'an old address with a query string', path: '/ancien?x=1', hit: true, status: 301 },
    { title: 'by-path of an old address (301)', path: '/app/api/pages/by-path?path=ancien', hit: true, status: 301 },
    { title: 'If-None-Match: the current ETag', path: '/p1', headers: { 'If-None-Match': etag }, hit: true, status: 304 },
    { title: 'If-None-Match: another ETag', path: '/p1', headers: { 'If-None-Match': '"autre"' }, hit: true, status: 200 },
    { title: 'If-None-Match: the weak form of the ETag', path: '/p1', headers: { 'If-None-Match': `W/${etag}` }, hit: true, status: 304 },
    { title: 'If-None-Match: a list holding the ETag', path: '/p1', headers: { 'If-None-Match': `"a", ${etag}` }, hit: true, status: 304 },
    { title: 'If-None-Match: *', path: '/p1', headers: { 'If-None-Match': '*' }, hit: true, status: 304 },
    { title: 'If-Modified-Since: the Last-Modified', path: '/p1', headers: { 'If-Modified-Since': lastModified }, hit: true, status: 304 },
    { title: 'If-Modified-Since: long ago', path: '/p1', headers: { 'If-Modified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' }, hit: true, status: 200 },
    {
      title: 'If-None-Match with Cache-Control: no-cache',
      path: '/p1',
      headers: { 'If-None-Match': etag, 'Cache-Control': 'no-cache' },
      hit: true,
      status: 200,
    },
    { title: 'HEAD with If-None-Match', method: 'HEAD', path: '/p1', headers: { 'If-None-Match': etag }, hit: true, status: 304 },
    { title: 'a foreign Host (421)', path: '/p1', headers: { Host: 'evil.example' }, status: 421 },
    { title: 'the site’s Host with another port (421)', path: '/p1', headers: { Host: 'site.test:8080' }, status: 421 },
    { title: 'a malformed Host (421)', path: '/p1', headers: { Host: 'site.test@evil.example' }, status: 421 },
    { title: 'the Host in capitals', path: '/p1', headers: { Host: 'SITE.TEST' }, hit: true, status: 200 },
    { title: 'a loopback Host with any port', path: '/p1', headers: { Host: 'localhost:1234' }, hit: true, status: 200 },
    { title: 'X-Forwarded-Proto: https (HSTS)', path: '/p1', headers: { 'X-Forwarded-Proto': 'https' }, hit: true, status: 200 },
    { title: 'X-Forwarded-Proto: https, http', path: '/p1', headers: { 'X-Forwarded-Proto': 'https, http' }, hit: true, status: 200 },
    { title: 'X-Forwarded-Host: a foreign host (421)', path: '/p1', headers: { 'X-Forwarded-Host': 'evil.example' }, status: 421 },
    {
      title: 'X-Forwarded-Host: the site, then another',
      path: '/p1',
      headers: { 'X-Forwarded-Host': 'site.test, evil.example', Host: 'evil.example' },
      hit: true,
      status: 200,
    },
    { title: 'X-Forwarded-For', path: '/p1', headers: { 'X-Forwarded-For': '203.0.113.9' }, hit: true, status: 200 },
    { title: 'a session cookie', path: '/p1', headers: { Cookie: 'site.sid=s%3Aabc.def' }, hit: true, status: 200 },
    { title: 'a Range header', path: '/p1', headers: { Range: 'bytes=0-10' }, hit: true, status: 200 },
    { title: 'an unknown path (404)', path: '/n-existe-pas', status: 404 },
    { title: 'a trailing slash (301)', path: '/p1/', status: 301 },
    { title: 'a trailing slash with a query string (301)', path: '/p1/?a=b', status: 301 },
    { title: 'a double slash (404)', path: '//p1', status: 404 },
    { title: 'an encoded slash', path: '/p1%2Fp2', status: 404 },
    { title: 'an encoded slug', path: '/%70%31', status: 404 },
    { title: 'dot segments', path: '/p1/p2/../p2', status: 404 },
    { title: 'a private page (404)', path: '/prive', status: 404 },
    { title: 'capitals in the path', path: '/P1', status: 404 },
    { title: 'POST on a page (404)', method: 'POST', path: '/p1', status: 404 },
    { title: 'OPTIONS on a page (Express’s Allow)', method: 'OPTIONS', path: '/p1', status: 200 },
    { title: 'a malformed query string', path: '/p1?%zz', hit: true, status: 200 },
    { title: 'by-path without a path (400)', path: '/app/api/pages/by-path?path=', status: 400 },
    { title: 'a static asset', path: '/assets/css/pages.css', status: 200 },
    { title: 'robots.txt', path: '/robots.txt', status: 200 },
  ];

  it('answers every row of the table alike, the hits without Express, and logs and counts them alike', async () => {
    const table = rows();
    expect(table.length).to.be.at.least(40);
    // Two rounds fill both caches and teach the hit path (a sitemap file is streamed as
    // it is filled: it is taught by its first answer from the cache).
    for (let round = 0; round < 2; round++) {
      for (const row of table) {
        await send(ports.hits, row);
        await send(ports.pipeline, row);
      }
    }
    const before = { hits: await requestCounts(ports.hits), pipeline: await requestCounts(ports.pipeline) };
    const logged = { hits: logs.hits.lines().length, pipeline: logs.pipeline.lines().length };
    for (const row of table) {
      const answered = a.publicHits!.answered;
      const viaHits = await send(ports.hits, row);
      const viaPipeline = await send(ports.pipeline, row);
      expect(viaPipeline.status, row.title).to.equal(row.status);
      expect(viaHits.status, row.title).to.equal(viaPipeline.status);
      expect(viaHits.headers, row.title).to.deep.equal(viaPipeline.headers);
      expect(viaHits.body.equals(viaPipeline.body), `${row.title}: body`).to.equal(true);
      expect(a.publicHits!.answered - answered, `${row.title}: answered by the hit path`).to.equal(row.hit ? 1 : 0);
    }
    const lines = { hits: logs.hits.lines().slice(logged.hits), pipeline: logs.pipeline.lines().slice(logged.pipeline) };
    expect(lines.hits).to.have.length(table.length);
    expect(lines.hits).to.deep.equal(lines.pipeline);
    const after = { hits: await requestCounts(ports.hits), pipeline: await requestCounts(ports.pipeline) };
    const added = (counts: typeof after.hits, earlier: typeof after.hits) =>
      Object.fromEntries(Object.entries(counts).map(([series, count]) => [series, count - (earlier[series] ?? 0)]));
    const hitsAdded = added(after.hits, before.hits);
    expect(hitsAdded).to.deep.equal(added(after.pipeline, before.pipeline));
    expect(hitsAdded['route="/*path",method="GET",status_class="2xx"']).to.be.at.least(10);
  });

  it('sends a change at once: the page changed through the other app is answered new, then from the hit path again', async () => {
    const p1 = (await a.db('app_pages').where({ slug: 'p1' }).first())!.id;
    await send(ports.hits, { title: '', path: '/p1', status: 200 });
    const answered = a.publicHits!.answered;
    expect((await send(ports.hits, { title: '', path: '/p1', status: 200 })).status).to.equal(200);
    expect(a.publicHits!.answered).to.equal(answered + 1);
    await notified(a, () => updatePage(b, p1, { title: 'Premier niveau renommé' }));
    const changed = await send(ports.hits, { title: '', path: '/p1', status: 200 });
    expect(changed.body.toString()).to.contain('Premier niveau renommé');
    expect(a.publicHits!.answered, 'the changed page went through the pipeline').to.equal(answered + 1);
    const again = await send(ports.hits, { title: '', path: '/p1', status: 200 });
    expect(again.body.equals(changed.body)).to.equal(true);
    expect(a.publicHits!.answered).to.equal(answered + 2);
  });

  it('never answers a write of its own process from the old answer (read-your-writes)', async () => {
    const p2 = (await a.db('app_pages').where({ slug: 'p2' }).first())!.id;
    await send(ports.hits, { title: '', path: '/p1/p2', status: 200 });
    await send(ports.hits, { title: '', path: '/p1/p2', status: 200 });
    await updatePage(a, p2, { title: 'Deuxième niveau renommé' });
    // No wait for the notification: the hit path must not answer before it is heard.
    const changed = await send(ports.hits, { title: '', path: '/p1/p2', status: 200 });
    expect(changed.body.toString()).to.contain('Deuxième niveau renommé');
  });
});
