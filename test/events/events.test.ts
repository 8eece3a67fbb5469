// The events fixture module (module.ts), registered beside pages in every test app:
// each extension point of the registrar (lib/modules.ts) as the module uses it. Its
// rows are in the permission matrices and bad-input tables too (fixture.ts).
import { once } from 'node:events';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import type { PublicChange } from '../../lib/public-cache.js';
import { createPage, updatePage } from '../../models/pages/pages.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller } from '../support/fixtures.js';
import { countStatements } from '../support/statements.js';
import { EVENTS_PERMISSION_SECTION } from './module.js';

const here = path.dirname(new URL(import.meta.url).pathname);

describe('a module beside pages (the events fixture)', () => {
  let app: App;
  let ctx: AppContext;
  before(async () => {
    app = createTestApp();
    ctx = contextOf(app);
    if (!ctx.publicCache.usable) await once(ctx.publicCache.events, 'listening', { signal: AbortSignal.timeout(10_000) });
  });
  beforeEach(() => resetData(ctx));

  const manager = () => AdminClient.as(app, { permissions: ['admin.access', 'events.view', 'events.manage'] });

  describe('permissionSection and migrations', () => {
    it('runs its migrations from the folder it declares and seeds the section it declares, held by the admin role', async () => {
      expect(ctx.site.migrationDirectories).to.include(path.join(here, 'migrations'));
      expect(await ctx.db('knex_migrations').where({ name: '20270101000000_events_tables' }).first()).to.not.equal(undefined);
      expect(await ctx.db('app_auth_permission_sections').where({ key: 'events' }).first('label', 'position')).to.deep.equal({
        label: EVENTS_PERMISSION_SECTION.label,
        position: EVENTS_PERMISSION_SECTION.position,
      });
      expect(await ctx.db('app_auth_permissions').where({ section: 'events' }).orderBy('position').select('key', 'label')).to.deep.equal(
        EVENTS_PERMISSION_SECTION.permissions,
      );
      const admin = await ctx.db('app_auth_roles').where({ name: 'admin' }).first('id');
      expect(await ctx.db('app_auth_role_permissions').where({ role_id: admin!.id, permission_key: 'events.manage' }).first()).to.not.equal(undefined);
    });
  });

  describe('views, adminRoutes, bodyLimit and fieldLabels', () => {
    it('renders its screen from its own view folder, after the core’s', async () => {
      expect(ctx.site.viewDirectories).to.include(path.join(here, 'views'));
      const client = await manager();
      const page = await client.get('/admin/events');
      expect(page.status).to.equal(200);
      expect(page.text).to.include('<h1>Événements</h1>').and.include('Aucun événement.');
    });

    it('takes a form larger than the surface’s on its own row (bodyLimit), while a core form refuses it (413)', async () => {
      const client = await manager();
      const description = 'Programme. '.repeat(20_000);
      expect(description.length).to.be.greaterThan(200_000);
      const created = await client.post('/admin/events', { title: 'Festival', starts_on: '2099-07-14', description });
      expect(created.status, created.text.slice(0, 300)).to.equal(303);
      expect(await ctx.db('app_events').pluck('description')).to.deep.equal([description]);
      const admin = await AdminClient.as(app, { role: 'admin' });
      const refused = await admin.post('/admin/roles', { label: 'Long', name: 'long', description });
      expect(refused.status).to.equal(413);
      expect(await ctx.db('app_auth_roles').where({ name: 'long' }).first()).to.equal(undefined);
    });

    it('names its field in the summary of a refused form by the label it declares (fieldLabels)', async () => {
      const client = await manager();
      const refused = await client.post('/admin/events', { title: 'Hier', starts_on: '2000-01-01' });
      expect(refused.status).to.equal(400);
      expect(refused.text).to.include('<a href="#field-starts_on">Date</a>');
      expect(refused.text).to.include('Cette date est déjà passée.');
      expect(await ctx.db('app_events').pluck('id')).to.deep.equal([]);
    });
  });

  describe('auditActions, auditTargets and dashboard', () => {
    it('records its action, labelled and linked on the dashboard and on the audit screen, with its type among the filters', async () => {
      const client = await manager();
      expect((await client.post('/admin/events', { title: 'Vernissage', starts_on: '2099-05-01' })).status).to.equal(303);
      const event = await ctx.db('app_events').first('id');
      const row = await ctx.db('app_audit_events').where({ action: 'event.created' }).first('target_type', 'target_id', 'target_label');
      expect(row).to.deep.equal({ target_type: 'event', target_id: String(event!.id), target_label: 'Vernissage' });

      const dashboard = await client.get('/admin');
      expect(textOf(dashboard.text)).to.include('Événement ajouté · Vernissage');
      expect(dashboard.text).to.include(`<a href="/admin/events#event-${event!.id}">Vernissage</a>`);

      const admin = await AdminClient.as(app, { role: 'admin' });
      const audit = await admin.get('/admin/audit');
      expect(audit.text).to.include('Événement ajouté').and.include('<option value="event.created"').and.include('<option value="event"');
      expect(audit.text).to.include(`href="/admin/events#event-${event!.id}"`);
    });

    it('shows its panel and step to those who may see them, counted in one statement whatever the number of events', async () => {
      const client = await manager();
      const open = () => client.get('/admin');
      await open();
      const empty = await countStatements(ctx, open);
      expect(textOf(empty.result.text)).to.include('Publiés 0').and.include('En attente 0');
      expect(empty.result.text).not.to.include('Publier les événements en attente');
      await ctx
        .db('app_events')
        .insert(Array.from({ length: 20 }, (_, index) => ({ title: `É${index}`, starts_on: '2099-01-01', published: index % 2 === 0 })));
      const busy = await countStatements(ctx, open);
      expect(textOf(busy.result.text)).to.include('Publiés 10').and.include('En attente 10');
      expect(busy.result.text).to.include('<a href="/admin/events">Publier les événements en attente</a>');
      expect(busy.count).to.equal(empty.count);

      const editor = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view'] });
      const other = await editor.get('/admin');
      expect(other.status).to.equal(200);
      expect(other.text).not.to.include('events-title').and.not.include('Publier les événements');
    });
  });

  describe('apiRoutes, siteRoutes and public cache tags', () => {
    const list = () => request(app).get('/app/api/events');

    it('answers its public list from the cache (no statement, 304 on If-None-Match) until its own write, shown at once', async () => {
      await ctx.db('app_events').insert({ title: 'Bal', starts_on: '2099-07-13', published: true });
      const first = await list();
      expect(first.status).to.equal(200);
      expect(first.body.events.map((event: { title: string }) => event.title)).to.deep.equal(['Bal']);
      const hit = await countStatements(ctx, () => list());
      expect(hit.count).to.equal(0);
      expect(hit.result.body).to.deep.equal(first.body);
      const fresh = await countStatements(ctx, () => request(app).get('/app/api/events').set('If-None-Match', first.headers.etag));
      expect(fresh.result.status).to.equal(304);
      expect(fresh.count).to.equal(0);

      const admin = await caller(ctx, { role: 'admin' });
      const created = await request(app)
        .post('/app/api/admin/events')
        .set('Cookie', admin.cookie)
        .send({ title: 'Feu', starts_on: '2099-07-14', published: true });
      expect(created.status).to.equal(201);
      const after = await list();
      expect(after.body.events.map((event: { title: string }) => event.title)).to.deep.equal(['Bal', 'Feu']);
    });

    it('drops its answer on its own trigger’s tags, from a write of another process, and keeps it across a page change', async () => {
      await list();
      const page = await createPage(ctx, { title: 'Accueil' });
      await list();
      const changes: PublicChange[] = [];
      const onChange = (change: PublicChange) => changes.push(change);
      ctx.publicCache.events.on('change', onChange);
      try {
        // A page's change names the page's tags only: the events' answer stays.
        const pageHeard = once(ctx.publicCache.events, 'change', { signal: AbortSignal.timeout(10_000) });
        await updatePage(ctx, page.id, { title: 'Bienvenue' });
        await pageHeard;
        await ctx.publicCache.caughtUp();
        expect((await countStatements(ctx, () => list())).count).to.equal(0);

        // Another process writes an event: its trigger names `events`, and the answer goes.
        const client = new pg.Client({ connectionString: ctx.config.databaseUrl });
        await client.connect();
        const eventHeard = once(ctx.publicCache.events, 'change', { signal: AbortSignal.timeout(10_000) });
        try {
          await client.query(`INSERT INTO app_events (title, starts_on, published) VALUES ('Ailleurs', '2099-08-01', true)`);
        } finally {
          await client.end();
        }
        await eventHeard;
        expect(changes.at(-1)!.tags).to.include('events');
        const reread = await countStatements(ctx, () => list());
        expect(reread.count).to.be.greaterThan(0);
        expect(reread.result.body.events.map((event: { title: string }) => event.title)).to.deep.equal(['Ailleurs']);
      } finally {
        ctx.publicCache.events.off('change', onChange);
      }
    });

    it('reaches its site row, registered after the pages module’s catch-all', async () => {
      await ctx.db('app_events').insert({ title: 'Kermesse', starts_on: '2099-06-01', published: true });
      const answer = await request(app).get('/agenda.json');
      expect(answer.status).to.equal(200);
      expect(answer.body.events.map((event: { title: string }) => event.title)).to.deep.equal(['Kermesse']);
    });
  });
});
