// @apart: runs nginx in front of app processes, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
// The README's nginx server block, as written there, in front of the app: Debian's
// nginx runs it (names, ports and certificates swapped for the test's own), and the
// requests go through it over TLS. An image near the upload limit passes (nginx's own
// limit is 1 MB without `client_max_body_size`, answered in English), a larger one gets
// the site's French refusal of a file over the media limit, plain HTTP and www. are redirected to BASE_URL's address, and
// the protocol and client address nginx forwards reach the app. Skipped, saying so,
// where nginx or openssl is not installed (`apt-get install -y nginx`; .ci/run does).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Server } from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import signature from 'cookie-signature';
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { projectRoot } from '../../lib/paths.js';
import { createSession } from '../../models/auth/sessions.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { listenOnFreePort } from '../support/browser.js';
import { makeUser, PNG_1X1 } from '../support/fixtures.js';

const SITE = 'site.test';
// A loopback address of the test's own: nginx forwards it, and the app must see it
// rather than nginx's 127.0.0.1.
const CLIENT_ADDRESS = '127.0.0.3';

/** The README's deployment block: the ```nginx fence that starts with its file name (indented as the list it sits in). */
function readmeServerBlock(): string {
  const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
  for (const [, indent, text] of readme.matchAll(/^( *)```nginx\n([\s\S]*?)^ *```/gm)) {
    const block = text.replace(new RegExp(`^${indent}`, 'gm'), '');
    if (block.startsWith('# /etc/nginx/sites-available/site')) return block;
  }
  throw new Error('README.md has no ```nginx block starting with "# /etc/nginx/sites-available/site"');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

describe('the README’s nginx server block in front of the app', function () {
  this.timeout(60_000);
  let scratch: string;
  let nginx: ChildProcess | undefined;
  let nginxLog = '';
  let server: Server;
  let ctx: AppContext;
  let httpPort: number;
  let httpsPort: number;

  before(async function () {
    this.timeout(30_000);
    const version = spawnSync('nginx', ['-v'], { encoding: 'utf8' });
    const openssl = spawnSync('openssl', ['version'], { encoding: 'utf8' });
    if (version.error || openssl.error) {
      console.log(`      ${version.error ? 'nginx' : 'openssl'} is not installed (apt-get install -y nginx): the README's server block is not tested`);
      return this.skip();
    }
    scratch = mkdtempSync(path.join(os.tmpdir(), 'site-nginx-'));
    // A certificate for the site and its www. name, as certbot would issue.
    const made = spawnSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${SITE}`, '-addext', `subjectAltName=DNS:${SITE},DNS:www.${SITE}`].concat([
        '-keyout',
        path.join(scratch, 'key.pem'),
        '-out',
        path.join(scratch, 'cert.pem'),
      ]),
      { encoding: 'utf8' },
    );
    expect(made.status, made.stderr).to.equal(0);

    const app = createTestApp({
      NODE_ENV: 'production',
      PASSWORD_HASH_COST: '11',
      MAIL_OUTBOX: 'true',
      APP_TRUST_PROXY: 'loopback',
      BASE_URL: `https://${SITE}`,
    });
    ctx = contextOf(app);
    let appUrl: string;
    ({ server, baseUrl: appUrl } = await listenOnFreePort(app));
    httpPort = await freePort();
    httpsPort = await freePort();
    const block = readmeServerBlock()
      .replaceAll('example.org', SITE)
      .replace(/^\s*listen \[::\]:\d+.*$/gm, '')
      .replace(/listen 80;/g, `listen 127.0.0.1:${httpPort};`)
      .replace(/listen 443 /g, `listen 127.0.0.1:${httpsPort} `)
      .replace(/ssl_certificate \S+;/g, `ssl_certificate ${path.join(scratch, 'cert.pem')};`)
      .replace(/ssl_certificate_key \S+;/g, `ssl_certificate_key ${path.join(scratch, 'key.pem')};`)
      .replace('proxy_pass http://127.0.0.1:3000;', `proxy_pass ${appUrl};`);
    writeFileSync(path.join(scratch, 'site.conf'), block);
    for (const dir of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(scratch, dir));
    writeFileSync(
      path.join(scratch, 'nginx.conf'),
      [
        // As root, nginx's workers would run as nobody, who cannot write the scratch folder.
        process.getuid?.() === 0 ? 'user root;' : '',
        'worker_processes 1;',
        `pid ${path.join(scratch, 'nginx.pid')};`,
        `error_log ${path.join(scratch, 'error.log')} warn;`,
        'events { worker_connections 64; }',
        'http {',
        '  access_log off;',
        ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((dir) => `  ${dir === 'body' ? 'client_body' : dir}_temp_path ${path.join(scratch, dir)};`),
        `  include ${path.join(scratch, 'site.conf')};`,
        '}',
      ].join('\n'),
    );
    nginx = spawn('nginx', ['-p', scratch, '-c', path.join(scratch, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.stdout!.on('data', (chunk) => (nginxLog += chunk));
    nginx.stderr!.on('data', (chunk) => (nginxLog += chunk));
    for (let attempt = 0; ; attempt++) {
      const up = await new Promise<boolean>((resolve) => {
        const socket = net.connect(httpsPort, '127.0.0.1', () => socket.end(() => resolve(true)));
        socket.once('error', () => resolve(false));
      });
      if (up) break;
      if (attempt === 100 || nginx.exitCode !== null) throw new Error(`nginx did not start:\n${nginxLog}\n${block}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  after(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx!.once('exit', resolve));
      nginx.kill('SIGTERM');
      await exited;
    }
    if (server) await new Promise((resolve) => server.close(resolve));
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });
  beforeEach(async function () {
    if (ctx) await resetData(ctx);
  });

  /** A request to nginx, naming `host`, from CLIENT_ADDRESS; over TLS unless `plain`. */
  function viaNginx(
    method: string,
    pathname: string,
    options: { host?: string; plain?: boolean; headers?: Record<string, string>; body?: Buffer } = {},
  ): Promise<Answer> {
    const host = options.host ?? SITE;
    const common = { method, path: pathname, localAddress: CLIENT_ADDRESS, headers: { Host: host, ...options.headers } };
    return new Promise((resolve, reject) => {
      const onAnswer = (res: http.IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      };
      const req = options.plain
        ? http.request({ ...common, host: '127.0.0.1', port: httpPort }, onAnswer)
        : https.request({ ...common, host: '127.0.0.1', port: httpsPort, servername: host, rejectUnauthorized: false }, onAnswer);
      req.once('error', reject);
      req.end(options.body);
    });
  }

  /** An administrator's session cookie, under the name HTTPS gives it in production. */
  async function adminCookie(): Promise<string> {
    const admin = await makeUser(ctx, { role: 'admin' });
    const sid = await createSession(ctx, admin.id);
    return `__Host-site.sid=${encodeURIComponent('s:' + signature.sign(sid, ctx.config.sessionSecret))}`;
  }

  /** A media upload of `size` bytes (a PNG by its first bytes), as the media screen sends it. */
  async function uploadImage(cookie: string, size: number): Promise<Answer> {
    const bytes = Buffer.alloc(size, 7);
    PNG_1X1.copy(bytes, 0, 0, 8);
    const form = new FormData();
    form.append('alt', 'Une image');
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'image.png');
    const encoded = new Request('http://form.invalid/', { method: 'POST', body: form });
    const body = Buffer.from(await encoded.arrayBuffer());
    return viaNginx('POST', '/app/api/admin/media', {
      headers: { Cookie: cookie, 'Content-Type': encoded.headers.get('content-type')!, 'Content-Length': String(body.length), Accept: 'application/json' },
      body,
    });
  }

  it('passes an image near the media limit (MEDIA_MAX_MB, 10 MB) to the app, and a larger one too: the site’s own answer (400) names the limit', async () => {
    const cookie = await adminCookie();
    const near = await uploadImage(cookie, 10_000_000);
    expect(near.status, near.body.toString()).to.equal(201);
    expect(JSON.parse(near.body.toString()).url).to.match(/^\/uploads\/media\/[0-9a-f]{32}\.png$/);
    expect(await ctx.db('app_pages_media').count({ n: '*' })).to.deep.equal([{ n: 1 }]);
    const over = await uploadImage(cookie, 10_600_000);
    expect(over.status).to.equal(400);
    expect(over.headers['content-type']).to.match(/^application\/json/);
    expect(JSON.parse(over.body.toString())).to.include({ code: 'image_too_large' });
  });

  it('hands the app the protocol and the client’s address: Secure __Host- cookies, HSTS, the address counted', async () => {
    const page = await viaNginx('GET', '/auth/login');
    expect(page.status).to.equal(200);
    expect(page.headers['strict-transport-security']).to.equal('max-age=31536000');
    expect(String(page.headers['set-cookie'])).to.match(/^__Host-site\.csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    // A write counts against the address the app read from X-Forwarded-For: the client's, not nginx's.
    await uploadImage(await adminCookie(), 1000);
    const keys = await ctx.db('app_auth_rate_limits').pluck<string[]>('key');
    expect(
      keys.some((key) => key.includes(CLIENT_ADDRESS)),
      keys.join(', '),
    ).to.equal(true);
    expect(
      keys.some((key) => key.includes('127.0.0.1')),
      keys.join(', '),
    ).to.equal(false);
  });

  it('sends plain HTTP and the www. name to BASE_URL’s address, path and query kept', async () => {
    const plain = await viaNginx('GET', '/guides/installer?x=1', { plain: true });
    expect(plain.status).to.equal(301);
    expect(plain.headers.location).to.equal(`https://${SITE}/guides/installer?x=1`);
    const plainWww = await viaNginx('GET', '/auth', { plain: true, host: `www.${SITE}` });
    expect(plainWww.headers.location).to.equal(`https://${SITE}/auth`);
    const www = await viaNginx('GET', '/auth?next=%2Fadmin', { host: `www.${SITE}` });
    expect(www.status).to.equal(301);
    expect(www.headers.location).to.equal(`https://${SITE}/auth?next=%2Fadmin`);
  });
});
