// @apart: spawns app processes, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
// The first hour of a site owner: a fresh database leads from `/` to the first-run form,
// typos do not lock it, and the dashboard greets with the next steps, then shows the
// site's counts, the latest changes the viewer may see and links to the site, in a
// fixed number of statements. The start log says where to go.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { recordAudit } from '../../models/audit.js';
import { createPage } from '../../models/pages/pages.js';
import { textOf } from '../support/admin-client.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { testDatabase } from '../support/database.js';
import { caller, makeUser } from '../support/fixtures.js';
import { FormClient, strongPassword, useFakeClock } from '../support/form-client.js';
import { spawnServer, waitForListening, type ServerProcess } from '../support/server-process.js';
import { countStatements } from '../support/statements.js';

/** The «Premiers pas» panel as text, or undefined when it is not shown. */
function stepsOf(html: string): string | undefined {
  const panel = /<section class="panel" aria-labelledby="steps-title">([\s\S]*?)<\/section>/.exec(html)?.[1];
  return panel === undefined ? undefined : textOf(panel);
}

describe('the first hour', () => {
  let app: App;
  let ctx: AppContext;
  const clock = useFakeClock();
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));
  afterEach(() => ctx.background.settle());

  describe('a new site', () => {
    it('leads from / to the first-run form, survives four too-short passwords, then greets the administrator with the next steps', async () => {
      const home = await request(app).get('/');
      expect(home.text).to.include('href="/auth"');
      const form = await request(app).get('/auth');
      expect(form.text).to.include('Créer le compte administrateur');

      const client = new FormClient(app, clock);
      for (let attempt = 1; attempt <= 4; attempt++) {
        expect((await client.submit('/auth', { name: 'Ada', email: 'ada@example.com', password: 'short' })).status, `attempt ${attempt}`).to.equal(400);
      }
      const created = await client.submit('/auth', { name: 'Ada', email: 'ada@example.com', password: strongPassword });
      expect(created.status).to.equal(303);
      expect(created.headers.location).to.equal('/admin');
      expect(await ctx.db('app_auth_users').pluck('email')).to.deep.equal(['ada@example.com']);

      const dashboard = await client.get('/admin');
      expect(dashboard.status).to.equal(200);
      expect(dashboard.text).to.include('Bienvenue, Ada.');
      const steps = stepsOf(dashboard.text)!;
      expect(steps).to.include('Créer une première page').and.to.include('Le site n’a encore aucune page.');
      expect(steps).to.include('Inviter une personne').and.to.include('Seul ce compte existe pour l’instant.');
      expect(steps).to.include('Voir le site').and.to.include('Aucune page n’est encore en ligne.');
      expect(steps).not.to.include('Fait');
      expect(dashboard.text).to.include('<a href="/admin/pages/new">Créer une première page</a>');
      expect(dashboard.text).to.include('<a href="/admin/users/new">Inviter une personne</a>');
    });
  });

  describe('the dashboard', () => {
    it('marks a step done once it is, and hides the steps when all are', async () => {
      const admin = await caller(ctx, { role: 'admin', name: 'Ada' });
      await createPage(ctx, { title: 'Brouillon', visibility: 'private' });
      let page = await request(app).get('/admin').set('Cookie', admin.cookie);
      let steps = stepsOf(page.text);
      expect(steps).to.include('Fait Créer une première page');
      expect(page.text).not.to.include('<a href="/admin/pages/new">');
      expect(steps).to.include('Seul ce compte existe pour l’instant.');

      await makeUser(ctx, { password: null, name: 'Invitée' });
      await createPage(ctx, { title: 'Accueil', slug: 'accueil' });
      page = await request(app).get('/admin').set('Cookie', admin.cookie);
      steps = stepsOf(page.text);
      expect(steps).to.equal(undefined);
    });

    it('counts accounts, pending invitations and pages by state', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      await makeUser(ctx);
      await makeUser(ctx, { password: null });
      await makeUser(ctx, { password: null });
      const online = await createPage(ctx, { title: 'En ligne' });
      await createPage(ctx, { title: 'Autre' });
      await createPage(ctx, { title: 'Cachée', visibility: 'private' });
      await ctx
        .db('app_pages')
        .where({ id: online.id })
        .update({ draft_revision: ctx.db.raw('revision'), scheduled_at: new Date(clock.current + 86_400_000) });

      const page = await request(app).get('/admin').set('Cookie', admin.cookie);
      const text = textOf(page.text);
      expect(text).to.include('En ligne 2').and.to.include('Privées 1');
      expect(text).to.include('Brouillons en attente 1').and.to.include('Publications programmées 1');
      expect(text).to.include('Comptes 4').and.to.include('Invitations en attente 2');
      expect(page.text).to.include('<a href="/">Page d’accueil du site</a>');
    });

    it('lists the latest changes the viewer may see, newest first, without sign-ins', async () => {
      const admin = await caller(ctx, { role: 'admin', name: 'Ada' });
      const editor = await caller(ctx, { permissions: ['admin.access', 'pages.view'] });
      const page = await createPage(ctx, { title: 'Tarifs' });
      const actor = { id: admin.id, name: 'Ada' };
      await recordAudit(ctx, { actor, ip: null, action: 'auth.login', target: { type: 'user', id: admin.id, label: 'Ada' } });
      await recordAudit(ctx, { actor, ip: null, action: 'page.created', target: { type: 'page', id: page.id, label: 'Tarifs' } });
      await recordAudit(ctx, { actor, ip: null, action: 'user.suspended', target: { type: 'user', id: editor.id, label: 'Bob' } });

      const forAdmin = textOf((await request(app).get('/admin').set('Cookie', admin.cookie)).text);
      expect(forAdmin).to.match(/Compte suspendu · Bob[\s\S]*Page créée · Tarifs/);
      expect(forAdmin).not.to.include('Connexion');
      expect(forAdmin).to.include('par Ada');

      const forEditor = await request(app).get('/admin').set('Cookie', editor.cookie);
      expect(forEditor.status).to.equal(200);
      expect(forEditor.text).to.include(`<a href="/admin/pages/${page.id}">Tarifs</a>`);
      expect(forEditor.text).not.to.include('Compte suspendu');
      // Nor the counts of accounts, nor the first steps the editor cannot take.
      expect(textOf(forEditor.text)).not.to.include('Invitations en attente');
      expect(stepsOf(forEditor.text) ?? '').not.to.include('Inviter une personne');
      expect(forEditor.text).not.to.include('href="/admin/audit"');
    });

    it('reads the same number of statements for an empty site and a busy one', async () => {
      const admin = await caller(ctx, { role: 'admin', name: 'Ada' });
      const open = () => request(app).get('/admin').set('Cookie', admin.cookie);
      await open();
      const empty = await countStatements(ctx, open);
      expect(empty.result.status).to.equal(200);

      for (let index = 0; index < 30; index++) {
        const page = await createPage(ctx, { title: `Page ${index}`, visibility: index % 3 ? 'public' : 'private' });
        await recordAudit(ctx, {
          actor: { id: admin.id, name: 'Ada' },
          ip: null,
          action: 'page.created',
          target: { type: 'page', id: page.id, label: `Page ${index}` },
        });
        await makeUser(ctx, { password: index % 2 ? null : undefined });
      }
      const busy = await countStatements(ctx, open);
      expect(busy.result.status).to.equal(200);
      expect(busy.count).to.equal(empty.count);
      // The session's read and its user, then each module's counts (one statement each) and the changes.
      expect(busy.count).to.be.at.most(2 + ctx.site.dashboards.length + 1);
    });
  });

  describe('the start log', () => {
    const env = () => ({
      DATABASE_URL: testDatabase().url,
      DATA_DIR: testDatabase().scratchDir,
      SESSION_SECRET: 'y'.repeat(40),
      PASSWORD_HASH_COST: '4',
    });

    async function startupLines(): Promise<Array<{ msg: string; [key: string]: unknown }>> {
      let server: ServerProcess | undefined;
      try {
        server = await spawnServer(env());
        await waitForListening(server);
        const output = server.output();
        return output
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { msg: string });
      } finally {
        server?.child.kill('SIGTERM');
        await server?.exited;
      }
    }

    it('prints the site’s URL and, while no account exists, the /auth URL, before «server listening»', async function () {
      this.timeout(60_000);
      const lines = await startupLines();
      const messages = lines.map((line) => line.msg);
      const listening = messages.indexOf('server listening');
      const site = lines.findIndex((line) => typeof line.siteUrl === 'string');
      const firstRun = lines.findIndex((line) => typeof line.firstRunUrl === 'string');
      expect(site).to.be.within(0, listening - 1);
      expect(firstRun).to.be.within(0, listening - 1);
      const base = lines[site].siteUrl as string;
      expect(base).to.match(/^http:\/\/localhost:\d+$/);
      expect(messages[site]).to.equal(`site: ${base}`);
      expect(messages[firstRun]).to.equal(`no account exists yet: create the administrator at ${base}/auth`);

      await makeUser(ctx, { role: 'admin' });
      const again = await startupLines();
      expect(again.some((line) => typeof line.siteUrl === 'string')).to.equal(true);
      expect(again.some((line) => 'firstRunUrl' in line)).to.equal(false);
    });
  });
});
