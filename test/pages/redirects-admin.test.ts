// Manual redirects: the JSON routes under /app/api/admin/redirects (pages.view reads,
// pages.manage writes, audited) and the screen /admin/redirects without JavaScript.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { deletePage } from '../../models/pages/page-delete.js';
import { updatePage } from '../../models/pages/pages.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makePage, userWith } from './helpers.js';
import { redirectMessages } from '../../models/pages/messages.js';

const API = '/app/api/admin/redirects';

describe('manual redirects (/app/api/admin/redirects and /admin/redirects)', () => {
  let app: App;
  let ctx: AppContext;
  let manager: { id: number; cookie: string };
  let target: { id: number };
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    manager = await userWith(ctx, ['admin.access', 'pages.view', 'pages.manage', 'pages.publish']);
    const parent = await makePage(ctx, { title: 'Guides', slug: 'guides' });
    target = await makePage(ctx, { title: 'Installer', slug: 'installer', parent_id: parent.id });
  });
  const post = (body: object, cookie = manager.cookie) => request(app).post(API).set('Cookie', cookie).send(body);

  it('adds a redirect that the site and by-path follow, lists it with its target, audits it, and deletes it', async () => {
    const created = await post({ from: '/aide/installation/', page_id: target.id });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ path: '/aide/installation', page_id: target.id, kind: 'manual', created_by: manager.id });
    expect(created.body.target).to.deep.equal({ id: target.id, title: 'Installer', path: '/guides/installer' });
    expect((await request(app).get('/aide/installation')).headers.location).to.equal('/guides/installer');
    expect((await request(app).get('/app/api/pages/by-path?path=aide/installation')).headers.location).to.equal(
      '/app/api/pages/by-path?path=guides%2Finstaller',
    );

    await post({ from: 'autre-chose', page_id: target.id });
    const listed = await request(app).get(`${API}?path=AIDE`).set('Cookie', manager.cookie);
    expect(listed.status).to.equal(200);
    expect(listed.body).to.deep.include({ total: 1, limit: 50, offset: 0 });
    expect(listed.body.items.map((item: { path: string }) => item.path)).to.deep.equal(['/aide/installation']);
    expect((await request(app).get(`${API}?limit=1&offset=1`).set('Cookie', manager.cookie)).body.items[0].path).to.equal('/aide/installation');
    expect((await request(app).get(`${API}?path=_`).set('Cookie', manager.cookie)).body.total).to.equal(0);

    const removed = await request(app).delete(`${API}/${created.body.id}`).set('Cookie', manager.cookie);
    expect(removed.status).to.equal(204);
    expect((await request(app).get('/aide/installation')).status).to.equal(404);
    expect(await ctx.db('app_page_redirects').where({ path: '/aide/installation' }).first()).to.equal(undefined);
    expect((await request(app).delete(`${API}/${created.body.id}`).set('Cookie', manager.cookie)).status).to.equal(404);

    const events = await ctx
      .db('app_audit_events')
      .whereIn('action', ['redirect.created', 'redirect.deleted'])
      .orderBy('id')
      .select('action', 'actor_id', 'target_label');
    expect(events).to.deep.equal([
      { action: 'redirect.created', actor_id: manager.id, target_label: '/aide/installation' },
      { action: 'redirect.created', actor_id: manager.id, target_label: '/autre-chose' },
      { action: 'redirect.deleted', actor_id: manager.id, target_label: '/aide/installation' },
    ]);
  });

  it('refuses a path that is not made of slugs, a path the site keeps, and a missing page, writing nothing', async () => {
    const cases: Array<[object, string, string]> = [
      [{ from: '/Pas Bon', page_id: target.id }, 'from', redirectMessages.pathInvalid],
      [{ from: '/a//b', page_id: target.id }, 'from', redirectMessages.pathInvalid],
      [{ from: '', page_id: target.id }, 'from', ''],
      [{ from: '/admin/pages', page_id: target.id }, 'from', redirectMessages.pathReserved],
      [{ from: '/ailleurs', page_id: 999999 }, 'page_id', redirectMessages.pageMissing],
      [{ from: '/ailleurs' }, 'page_id', ''],
    ];
    for (const [body, field, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(
        res.body.details.map((detail: { field: string }) => detail.field),
        JSON.stringify(body),
      ).to.include(field);
      if (message) expect(res.body.error).to.equal(message);
    }
    expect(await ctx.db('app_page_redirects').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('answers 409 for the path of a live page (private too) and for a path already redirected, but replaces a deleted page’s 410', async () => {
    await makePage(ctx, { title: 'Cachée', slug: 'cachee', visibility: 'private' });
    for (const from of ['/guides/installer', '/cachee']) {
      const res = await post({ from, page_id: target.id });
      expect(res.status, from).to.equal(409);
      expect(res.body.code, from).to.equal('path_in_use');
    }
    expect((await post({ from: '/vieux', page_id: target.id })).status).to.equal(201);
    const again = await post({ from: '/vieux', page_id: target.id });
    expect(again.status).to.equal(409);
    expect(again.body).to.include({ code: 'already_redirected', error: redirectMessages.alreadyRedirected });

    const doomed = await makePage(ctx, { title: 'Éphémère', slug: 'ephemere' });
    await deletePage(ctx, doomed.id);
    expect((await request(app).get('/ephemere')).status).to.equal(410);
    const replaced = await post({ from: '/ephemere', page_id: target.id });
    expect(replaced.status).to.equal(201);
    expect((await request(app).get('/ephemere')).headers.location).to.equal('/guides/installer');
    expect(await ctx.db('app_page_redirects').where({ path: '/ephemere' }).select('page_id', 'kind')).to.deep.equal([{ page_id: target.id, kind: 'manual' }]);
  });

  it('lets pages.view read the list and refuses it the writes; refuses a caller without a session', async () => {
    const reader = await userWith(ctx, ['admin.access', 'pages.view']);
    expect((await request(app).get(API).set('Cookie', reader.cookie)).status).to.equal(200);
    expect((await post({ from: '/x', page_id: target.id }, reader.cookie)).status).to.equal(403);
    expect((await request(app).delete(`${API}/1`).set('Cookie', reader.cookie)).status).to.equal(403);
    expect((await request(app).get(API)).status).to.equal(401);
    expect(await ctx.db('app_page_redirects').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('the screen lists the redirects with a filter, adds one from its form, keeps the input of a refused one, and deletes one', async () => {
    const editor = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
    await updatePage(ctx, target.id, { slug: 'installation' });
    const list = await editor.get('/admin/redirects');
    expect(list.status).to.equal(200);
    expect(textOf(list.text)).to.include('/guides/installer').and.include('Installer').and.include('/guides/installation').and.include('Automatique');
    expect(list.text).to.include('href="/admin/redirects"');

    const refused = await editor.post('/admin/redirects', { from: '/guides/installation', page_id: String(target.id) }, '/admin/redirects');
    expect(refused.status).to.equal(409);
    expect(textOf(refused.text)).to.include(textOf(redirectMessages.pathInUse));
    expect(refused.text).to.include('value="/guides/installation"');

    const nowhere = await editor.post('/admin/redirects', { from: '/demarrer', page_id: '/guides/inconnue' }, '/admin/redirects');
    expect(nowhere.status).to.equal(400);
    expect(textOf(nowhere.text)).to.include(textOf(redirectMessages.pageMissing));
    // The target named by its current address (its number works too).
    const added = await editor.post('/admin/redirects', { from: '/demarrer', page_id: '/guides/installation' }, '/admin/redirects');
    const shown = await editor.follow(added);
    expect(textOf(shown.text)).to.include('La redirection est enregistrée.').and.include('/demarrer').and.include('Manuelle');
    expect((await request(app).get('/demarrer')).headers.location).to.equal('/guides/installation');

    const filtered = await editor.get('/admin/redirects?path=demarr');
    expect(textOf(filtered.text)).to.include('/demarrer').and.not.include('/guides/installer ');
    const row = await ctx.db('app_page_redirects').where({ path: '/demarrer' }).first('id');
    const deleted = await editor.post(`/admin/redirects/${row!.id}/delete`, {}, '/admin/redirects');
    expect(textOf((await editor.follow(deleted)).text)).to.include('La redirection est supprimée.');
    expect(await ctx.db('app_page_redirects').where({ path: '/demarrer' }).first()).to.equal(undefined);
  });

  it('the screen writes each redirect’s date in French, the instant in its datetime', async () => {
    const reader = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view'] });
    await post({ from: '/aide', page_id: target.id });
    await ctx
      .db('app_page_redirects')
      .where({ path: '/aide' })
      .update({ created_at: new Date('2026-11-26T10:00:00Z') });
    const page = await reader.get('/admin/redirects');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<time datetime="2026-11-26T10:00:00.000Z">26\u00a0novembre 2026</time>');
    expect(textOf(page.text)).not.to.include('2026-11-26');
  });

  it('the screen shows no form to a pages.view reader, and the navigation links it', async () => {
    const reader = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view'] });
    const page = await reader.get('/admin/redirects');
    expect(page.status).to.equal(200);
    expect(page.text).not.to.include('method="post" action="/admin/redirects"');
    expect(page.text).not.to.include('/delete"');
    expect((await reader.get('/admin/pages')).text).to.include('href="/admin/redirects"');
  });
});
