// @apart: spawns app processes, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
// A fresh install must not be claimed by someone else: DNS rebinding from a page of
// another site is answered 421 (middleware/host-check.ts), and a server reachable by
// others (beyond loopback, in production, behind a proxy) asks for the one-time setup
// code printed in its log (lib/setup-code.ts).
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { newSetupCode, setupCodeMatches, setupCodeRequired } from '../../../lib/setup-code.js';
import { HOST_REFUSED_TEXT } from '../../../lib/messages.js';
import { isOwnHost, parseHost } from '../../../middleware/host-check.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { testDatabase } from '../../support/database.js';
import { spawnServer, waitForListening, type ServerProcess } from '../../support/server-process.js';
import { FormClient, strongPassword, useFakeClock } from '../../support/form-client.js';

const admin = { _form: 'first-run', name: 'Ada', email: 'ada@example.com', password: strongPassword };

describe('first run exposed to other sites and to the network', () => {
  const clock = useFakeClock();

  describe('Host check (DNS rebinding)', () => {
    let app: App;
    let ctx: AppContext;
    before(() => {
      app = createTestApp();
      ctx = contextOf(app);
    });
    beforeEach(() => resetData(ctx));

    it('answers 421 with a short text naming BASE_URL to a GET naming another host', async () => {
      for (const path of ['/auth', '/auth/login', '/assets/css/site.css', '/', '/app/api/pages']) {
        const response = await request(app).get(path).set('Host', 'rebound.example:3000');
        expect(response.status, path).to.equal(421);
        expect(response.headers['content-type'], path).to.equal('text/plain; charset=utf-8');
        expect(response.headers['x-content-type-options'], path).to.equal('nosniff');
        expect(response.text, path).to.equal(HOST_REFUSED_TEXT);
        expect(response.text, path).not.to.include('rebound.example');
      }
      expect(HOST_REFUSED_TEXT).to.include('BASE_URL');
    });

    it('answers 421 to the first-run form posted through a rebound name, and creates nothing', async () => {
      const client = new FormClient(app, clock);
      const tokens = await client.tokens('/auth');
      clock.advance(2000);
      // What the attacker's page sends once its name resolves to this server: its own
      // name as Host and as Origin, so the request looks same-origin to the browser.
      const response = await client.agent
        .post('/auth')
        .type('form')
        .set('Host', 'rebound.example:3000')
        .set('Origin', 'http://rebound.example:3000')
        .set('Sec-Fetch-Site', 'same-origin')
        .send({ ...tokens, _hp: '', ...admin });
      expect(response.status).to.equal(421);
      expect(response.text).to.equal(HOST_REFUSED_TEXT);
      expect(await ctx.db('app_auth_users')).to.have.length(0);
    });

    it('answers the host of BASE_URL and the loopback names on any port', async () => {
      for (const host of ['site.test', 'SITE.test', 'site.test:80', '127.0.0.1:3000', '127.0.0.1', 'localhost:8080', '[::1]:3000']) {
        expect((await request(app).get('/auth').set('Host', host)).status, host).to.equal(200);
      }
      for (const host of ['site.test:8080', 'www.site.test', 'site.test.', '192.168.1.10:3000', 'evil.example@site.test', 'site.test/x']) {
        expect((await request(app).get('/auth').set('Host', host)).status, host).to.equal(421);
      }
    });

    it('reads X-Forwarded-Host only behind a trusted proxy', async () => {
      expect((await request(app).get('/auth').set('X-Forwarded-Host', 'rebound.example')).status).to.equal(200);
      const proxied = createTestApp({ APP_TRUST_PROXY: 'loopback' });
      try {
        expect((await request(proxied).get('/auth').set('X-Forwarded-Host', 'rebound.example')).status).to.equal(421);
        expect((await request(proxied).get('/auth').set('X-Forwarded-Host', 'site.test')).status).to.equal(200);
      } finally {
        await closeTestApp(proxied);
      }
    });

    it('warns the operator once, naming the host and BASE_URL', async () => {
      const fresh = createTestApp();
      const warnings: unknown[][] = [];
      contextOf(fresh).logger.warn = (...args: unknown[]) => void warnings.push(args);
      try {
        for (let index = 0; index < 3; index++) await request(fresh).get('/').set('Host', 'rebound.example');
        expect(warnings).to.have.length(1);
        expect(warnings[0][0]).to.deep.equal({ host: 'rebound.example', baseUrl: 'http://site.test' });
        expect(String(warnings[0][1])).to.include('set BASE_URL');
      } finally {
        await closeTestApp(fresh);
      }
    });

    it('compares ports as the scheme means them', () => {
      const https = 'https://example.org';
      expect(isOwnHost(https, parseHost('example.org'))).to.equal(true);
      expect(isOwnHost(https, parseHost('example.org:443'))).to.equal(true);
      expect(isOwnHost(https, parseHost('example.org:80'))).to.equal(false);
      expect(isOwnHost('http://example.org:8080', parseHost('example.org:8080'))).to.equal(true);
      expect(isOwnHost('http://example.org:8080', parseHost('example.org'))).to.equal(false);
      expect(isOwnHost('http://[2001:db8::1]:3000', parseHost('[2001:db8::1]:3000'))).to.equal(true);
      expect(isOwnHost(https, parseHost(undefined))).to.equal(false);
      expect(isOwnHost(https, parseHost(''))).to.equal(false);
    });
  });

  describe('setup code', () => {
    it('is asked on a server listening beyond loopback, in production, and behind a proxy; not on a loopback development install', () => {
      const development = { isProduction: false, trustProxy: false } as const;
      for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.org']) expect(setupCodeRequired({ host, ...development }), host).to.equal(true);
      for (const host of ['127.0.0.1', '127.0.1.1', 'localhost', '::1', '[::1]']) expect(setupCodeRequired({ host, ...development }), host).to.equal(false);
      // Behind nginx on the same host the server listens on loopback, yet anyone reaches it.
      expect(setupCodeRequired({ host: '127.0.0.1', isProduction: true, trustProxy: false })).to.equal(true);
      expect(setupCodeRequired({ host: '127.0.0.1', isProduction: false, trustProxy: ['loopback'] })).to.equal(true);
      expect(setupCodeRequired({ host: '127.0.0.1', isProduction: false, trustProxy: 1 })).to.equal(true);
    });

    it('is new for each application, 60 random bits, typed without regard to case, spaces or dashes', () => {
      const codes = new Set(Array.from({ length: 50 }, () => newSetupCode()));
      expect(codes.size).to.equal(50);
      const code = [...codes][0];
      expect(code).to.match(/^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
      expect(setupCodeMatches(code, code.toLowerCase().replace(/-/g, ' '))).to.equal(true);
      expect(setupCodeMatches(code, code.slice(0, -1))).to.equal(false);
      expect(setupCodeMatches(code, undefined)).to.equal(false);
      expect(setupCodeMatches(code, 'x'.repeat(1000))).to.equal(false);
    });

    describe('on HOST=0.0.0.0', () => {
      let app: App;
      let ctx: AppContext;
      before(() => {
        app = createTestApp({ HOST: '0.0.0.0' });
        ctx = contextOf(app);
      });
      beforeEach(() => resetData(ctx));

      it('shows the field, empty, on the first-run form', async () => {
        const page = await request(app).get('/auth');
        expect(page.text).to.include('name="setupCode"');
        expect(page.text).to.include('Code d’installation');
        expect(page.text).not.to.include(ctx.memo.setupCode);
      });

      it('refuses the first-run form without the code or with a wrong one, then accepts the right one', async () => {
        const client = new FormClient(app, clock);
        const missing = await client.submit('/auth', admin);
        expect(missing.status).to.equal(400);
        expect(missing.text).to.include('Le code d’installation est incorrect.');
        expect(missing.text).to.include('value="ada@example.com"');
        const wrong = await client.submit('/auth', { ...admin, setupCode: newSetupCode() }, { json: true });
        expect(wrong.status).to.equal(400);
        expect(wrong.body).to.include({ success: false, code: 'setup_code_wrong' });
        expect(wrong.body.details).to.deep.equal([{ field: 'setupCode', message: wrong.body.error }]);
        const echoed = await client.submit('/auth', { ...admin, setupCode: 'ABCD-EFGH-JKLM' });
        expect(echoed.text).not.to.include('ABCD-EFGH-JKLM');
        expect(await ctx.db('app_auth_users')).to.have.length(0);

        const right = await client.submit('/auth', { ...admin, setupCode: ` ${ctx.memo.setupCode.toLowerCase()} ` });
        expect(right.status).to.equal(303);
        expect(right.headers.location).to.equal('/admin');
        expect(await ctx.db('app_auth_users').pluck('email')).to.deep.equal(['ada@example.com']);
      });
    });

    it('is asked behind a proxy on loopback (APP_TRUST_PROXY), as the README deploys it', async () => {
      const app = createTestApp({ APP_TRUST_PROXY: 'loopback' });
      const ctx = contextOf(app);
      try {
        await resetData(ctx);
        expect((await request(app).get('/auth')).text).to.include('name="setupCode"');
        const missing = await new FormClient(app, clock).submit('/auth', admin, { headers: { 'X-Forwarded-For': '203.0.113.9' } });
        expect(missing.status).to.equal(400);
        expect(missing.text).to.include('Le code d’installation est incorrect.');
        expect(await ctx.db('app_auth_users')).to.have.length(0);
        const right = await new FormClient(app, clock).submit(
          '/auth',
          { ...admin, setupCode: ctx.memo.setupCode },
          { headers: { 'X-Forwarded-For': '203.0.113.9' } },
        );
        expect(right.status).to.equal(303);
        // The creation is audited: by the new administrator, from the client's address, with the code asked.
        const [event] = await ctx.db('app_audit_events').where({ action: 'auth.first_admin_created' }).select('actor_name', 'ip', 'target_type', 'details');
        expect(event).to.deep.equal({ actor_name: 'Ada', ip: '203.0.113.9', target_type: 'user', details: { setup_code_asked: true } });
      } finally {
        await closeTestApp(app);
      }
    });

    it('is not asked on a loopback install', async () => {
      const app = createTestApp();
      const ctx = contextOf(app);
      try {
        await resetData(ctx);
        expect((await request(app).get('/auth')).text).not.to.include('name="setupCode"');
        const response = await new FormClient(app, clock).submit('/auth', admin);
        expect(response.status).to.equal(303);
        const events = await ctx.db('app_audit_events').where({ action: 'auth.first_admin_created' }).select('actor_name', 'details');
        expect(events).to.deep.equal([{ actor_name: 'Ada', details: { setup_code_asked: false } }]);
      } finally {
        await closeTestApp(app);
      }
    });

    describe('in the server’s log', () => {
      let ctx: AppContext;
      before(() => {
        ctx = contextOf(createTestApp());
      });
      beforeEach(() => resetData(ctx));

      const env = (host: string, extra: Record<string, string>) => ({
        DATABASE_URL: testDatabase().url,
        DATA_DIR: testDatabase().scratchDir,
        SESSION_SECRET: 'y'.repeat(40),
        PASSWORD_HASH_COST: '4',
        HOST: host,
        ...extra,
      });

      async function startupLog(host: string, extra: Record<string, string> = {}): Promise<string> {
        let server: ServerProcess | undefined;
        try {
          server = await spawnServer(env(host, extra));
          // The code, when there is one, comes before the 'server listening' line.
          await waitForListening(server);
          return server.output();
        } finally {
          server?.child.kill('SIGTERM');
          await server?.exited;
        }
      }

      const codeIn = (log: string) => /"setupCode":"([^"]+)"/.exec(log)?.[1];

      it('prints a new code at each start beyond loopback or behind a proxy while no account exists, and none otherwise', async function () {
        // Five server starts.
        this.timeout(75_000);
        const first = codeIn(await startupLog('0.0.0.0'));
        const second = codeIn(await startupLog('0.0.0.0'));
        expect(first).to.match(/^[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4}$/);
        expect(second).to.match(/^[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4}$/);
        expect(second).not.to.equal(first);
        expect(codeIn(await startupLog('127.0.0.1'))).to.equal(undefined);
        const proxied = await startupLog('127.0.0.1', { APP_TRUST_PROXY: 'loopback' });
        expect(codeIn(proxied)).to.match(/^[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4}$/);
        expect(proxied).to.include('APP_TRUST_PROXY');
        await ctx
          .db('app_auth_users')
          .insert({ email: 'ada@example.com', name: 'Ada', role_id: (await ctx.db('app_auth_roles').where({ name: 'admin' }).first('id'))!.id });
        expect(codeIn(await startupLog('0.0.0.0'))).to.equal(undefined);
      });
    });
  });
});
