// GET /app/api/audit and the /admin/audit screen: permission audit.view, the filters,
// keyset pagination newest first, and a cursor the API did not give refused.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { startOfDay } from '../../controllers/audit/screen.js';
import { recordAudit, type AuditEvent } from '../../models/audit.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller } from '../support/fixtures.js';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const MINUTE = 60_000;

describe('reading the audit log', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp({ APP_TIME_ZONE: 'Europe/Paris' });
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));
  afterEach(() => ctx.clock.set());

  async function record(at: number, event: AuditEvent): Promise<void> {
    ctx.clock.set(() => at);
    await recordAudit(ctx, event);
    ctx.clock.set();
  }

  const alice = { id: 11, name: 'Alice' };
  const bob = { id: 12, name: 'Bob' };

  /** Events a minute apart: Alice logs in, edits page 5 twice, Bob edits page 6, a visitor fails to log in. */
  async function sample(): Promise<void> {
    await record(T0, { actor: alice, ip: '198.51.100.1', action: 'auth.login', target: { type: 'user', id: 11, label: 'Alice' } });
    await record(T0 + MINUTE, {
      actor: alice,
      ip: '198.51.100.1',
      action: 'page.updated',
      target: { type: 'page', id: 5, label: 'Accueil' },
      details: { fields: ['title'] },
    });
    await record(T0 + 2 * MINUTE, {
      actor: bob,
      ip: '198.51.100.2',
      action: 'page.updated',
      target: { type: 'page', id: 6, label: 'Contact' },
      details: { fields: ['blocks'] },
    });
    await record(T0 + 3 * MINUTE, { actor: alice, ip: '198.51.100.1', action: 'page.moved', target: { type: 'page', id: 5, label: 'Accueil' } });
    await record(T0 + 4 * MINUTE, { actor: null, ip: '203.0.113.7', action: 'auth.login_failed', target: null, details: { reason: 'invalid_credentials' } });
  }

  describe('GET /app/api/audit', () => {
    it('answers 401 without a session and 403 without audit.view; the admin role holds it', async () => {
      expect((await request(app).get('/app/api/audit')).status).to.equal(401);
      const editor = await caller(ctx, { permissions: ['admin.access', 'users.view', 'pages.manage'] });
      const refused = await request(app).get('/app/api/audit').set('Cookie', editor.cookie);
      expect(refused.status).to.equal(403);
      expect(refused.body.error).to.be.a('string');
      const admin = await caller(ctx, { role: 'admin' });
      expect((await request(app).get('/app/api/audit').set('Cookie', admin.cookie)).status).to.equal(200);
    });

    it('lists events newest first as {items, next_cursor}, each {id, at, actor, ip, action, target, details}', async () => {
      await sample();
      const reader = await caller(ctx, { permissions: ['admin.access', 'audit.view'] });
      const response = await request(app).get('/app/api/audit').set('Cookie', reader.cookie);
      expect(response.status).to.equal(200);
      expect(response.body.next_cursor).to.equal(null);
      expect(response.body.items.map((item: { action: string }) => item.action)).to.deep.equal([
        'auth.login_failed',
        'page.moved',
        'page.updated',
        'page.updated',
        'auth.login',
      ]);
      expect(response.body.items[0]).to.deep.equal({
        id: 5,
        at: new Date(T0 + 4 * MINUTE).toISOString(),
        actor: null,
        ip: '203.0.113.7',
        action: 'auth.login_failed',
        target: null,
        details: { reason: 'invalid_credentials' },
      });
      expect(response.body.items[1]).to.deep.equal({
        id: 4,
        at: new Date(T0 + 3 * MINUTE).toISOString(),
        actor: { id: 11, name: 'Alice' },
        ip: '198.51.100.1',
        action: 'page.moved',
        target: { type: 'page', id: '5', label: 'Accueil' },
        details: {},
      });
    });

    it('filters by actor, action, target and time range, and combines them', async () => {
      await sample();
      const reader = await caller(ctx, { permissions: ['admin.access', 'audit.view'] });
      const ids = async (query: string) => {
        const response = await request(app).get(`/app/api/audit?${query}`).set('Cookie', reader.cookie);
        expect(response.status, query).to.equal(200);
        return response.body.items.map((item: { id: number }) => item.id);
      };
      expect(await ids('actor_id=11')).to.deep.equal([4, 2, 1]);
      expect(await ids('action=page.updated')).to.deep.equal([3, 2]);
      expect(await ids('target_type=page&target_id=5')).to.deep.equal([4, 2]);
      expect(await ids('target_type=page')).to.deep.equal([4, 3, 2]);
      expect(await ids(`from=${new Date(T0 + MINUTE).toISOString()}&to=${new Date(T0 + 3 * MINUTE).toISOString()}`)).to.deep.equal([3, 2]);
      expect(await ids('actor_id=11&action=page.updated')).to.deep.equal([2]);
      expect(await ids('actor_id=99')).to.deep.equal([]);
    });

    it('pages with an opaque cursor: no event twice or missed, and events written meanwhile do not shift the pages', async () => {
      for (let index = 0; index < 120; index++)
        await record(T0 + index * MINUTE, { actor: alice, ip: null, action: 'page.updated', target: { type: 'page', id: index, label: null } });
      const reader = await caller(ctx, { permissions: ['admin.access', 'audit.view'] });
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const path = `/app/api/audit?limit=50${cursor ? `&cursor=${cursor}` : ''}`;
        const response: request.Response = await request(app).get(path).set('Cookie', reader.cookie);
        expect(response.status).to.equal(200);
        seen.push(...response.body.items.map((item: { id: number }) => item.id));
        cursor = response.body.next_cursor as string | null;
        if (cursor)
          expect(cursor)
            .to.match(/^[A-Za-z0-9_-]+$/)
            .and.not.include(String(seen[seen.length - 1]));
        // A new event after the first page lands before the list, not inside it.
        if (pages++ === 0) await record(T0 + 500 * MINUTE, { actor: bob, ip: null, action: 'auth.login' });
      } while (cursor);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(Array.from({ length: 120 }, (_, index) => 120 - index));
    });

    it('refuses a target id without its type, saying so', async () => {
      const reader = await caller(ctx, { permissions: ['admin.access', 'audit.view'] });
      const response = await request(app).get('/app/api/audit?target_id=5').set('Cookie', reader.cookie);
      expect(response.status).to.equal(400);
      expect(response.body.details.map((detail: { message: string }) => detail.message)).to.deep.equal([
        '«\u00a0target_id\u00a0» demande aussi «\u00a0target_type\u00a0» (par exemple «\u00a0target_type=page&target_id=12\u00a0»).',
      ]);
    });

    it('refuses a cursor it did not give with a 400 and a French message', async () => {
      const reader = await caller(ctx, { permissions: ['admin.access', 'audit.view'] });
      for (const cursor of [
        'abc',
        Buffer.from('a1.0').toString('base64url'),
        Buffer.from('b1.12').toString('base64url'),
        Buffer.from('a1.99999999999999999').toString('base64url'),
      ]) {
        const response = await request(app).get(`/app/api/audit?cursor=${cursor}`).set('Cookie', reader.cookie);
        expect(response.status, cursor).to.equal(400);
        expect(response.body).to.include({ code: 'bad_cursor', error: 'Le curseur de pagination n’est pas valide : reprendre la liste depuis le début.' });
      }
    });
  });

  describe('GET /admin/audit', () => {
    it('shows the events with French labels and dates in the site’s time zone, and «Journal» in the navigation', async () => {
      await sample();
      const client = await AdminClient.as(app, { permissions: ['admin.access', 'audit.view'] });
      const page = await client.get('/admin/audit');
      expect(page.status).to.equal(200);
      const text = textOf(page.text);
      expect(text).to.include('Journal');
      expect(page.text).to.include('href="/admin/audit"');
      // 10:04 UTC is 11:04 in Paris in November.
      expect(text).to.include('20 novembre 2026 à 11 h 04');
      expect(text).to.include('Connexion refusée');
      expect(text).to.include('Page déplacée');
      expect(text).to.include('Visiteur ou système');
      expect(text).to.include('Accueil');
      expect(page.text).to.include('href="/admin/audit?actor_id=11"');
      expect(page.text).to.include('href="/admin/audit?target_type=page&amp;target_id=5"');
      expect(text).not.to.include('Plus ancien');
    });

    it('filters with the same fields as the API, days taken in the site’s time zone', async () => {
      await sample();
      const client = await AdminClient.as(app, { permissions: ['admin.access', 'audit.view'] });
      // The rows only (the action field lists every label).
      const rows = async (path: string) => {
        const page = await client.get(path);
        expect(page.status, path).to.equal(200);
        return textOf(/<tbody>([\s\S]*)<\/tbody>/.exec(page.text)?.[1] ?? '');
      };
      const byAction = await rows('/admin/audit?action=page.updated&actor_id=&target_type=&target_id=&from=&to=');
      expect(byAction).to.include('Contact').and.include('Page modifiée');
      expect(byAction).not.to.include('Page déplacée');
      const page = await client.get('/admin/audit?action=page.updated');
      expect(page.text).to.include('<option value="page.updated" selected>');
      const byTarget = await rows('/admin/audit?target_type=page&target_id=6');
      expect(byTarget).to.include('Contact');
      expect(byTarget).not.to.include('Accueil');
      // 20 November in Paris: 23:00 UTC on the 19th to 23:00 UTC on the 20th.
      expect(await rows('/admin/audit?from=2026-11-20&to=2026-11-20')).to.include('Connexion refusée');
      expect(await rows('/admin/audit?to=2026-11-19')).to.equal('');
      expect(textOf((await client.get('/admin/audit?to=2026-11-19')).text)).to.include('Aucun événement ne correspond.');
    });

    it('takes a day from its local midnight, across a change of summer time too', () => {
      expect(startOfDay('2026-11-20', 'Europe/Paris').toISOString()).to.equal('2026-11-19T23:00:00.000Z');
      expect(startOfDay('2026-03-29', 'Europe/Paris').toISOString()).to.equal('2026-03-28T23:00:00.000Z');
      expect(startOfDay('2026-03-30', 'Europe/Paris').toISOString()).to.equal('2026-03-29T22:00:00.000Z');
      expect(startOfDay('2026-07-01', 'America/Montreal').toISOString()).to.equal('2026-07-01T04:00:00.000Z');
      expect(startOfDay('2026-07-01', 'UTC').toISOString()).to.equal('2026-07-01T00:00:00.000Z');
    });

    it('pages on with «Plus ancien», keeping the filters', async () => {
      for (let index = 0; index < 60; index++)
        await record(T0 + index * MINUTE, { actor: alice, ip: null, action: 'page.updated', target: { type: 'page', id: 1, label: `Version ${index}` } });
      const client = await AdminClient.as(app, { permissions: ['admin.access', 'audit.view'] });
      const first = await client.get('/admin/audit?action=page.updated');
      const older = /<a href="([^"]+)" rel="next">Plus ancien<\/a>/.exec(first.text)?.[1].replace(/&amp;/g, '&');
      expect(older).to.match(/^\/admin\/audit\?action=page.updated&cursor=/);
      expect(textOf(first.text)).to.include('Version 59').and.include('Version 10').and.not.include('Version 9 ');
      const second = await client.get(older!);
      expect(second.status).to.equal(200);
      const text = textOf(second.text);
      expect(text).to.include('Version 9').and.include('Version 0').and.not.include('Version 10');
      expect(text).to.include('Plus récent').and.not.include('Plus ancien');
    });

    it('is refused without audit.view, and «Journal» is not offered', async () => {
      const client = await AdminClient.as(app, { permissions: ['admin.access', 'users.view'] });
      expect((await client.get('/admin/audit')).status).to.equal(403);
      expect((await client.get('/admin')).text).not.to.include('href="/admin/audit"');
    });
  });
});
