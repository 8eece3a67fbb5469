// Pages for members (issue 26, item 6): a section for any signed-in account (`members`)
// and one for a role (`roles`), read by an anonymous visitor, a signed-in account without
// the role and one with it, on the site, by path, in the child lists, the navigation and
// menus, the sitemap and search; the shared public cache never holds them (a member's
// visit fills nothing an anonymous visitor can get) and every answer about them says
// `Cache-Control: private, no-store` to the proxies. Everyone-pages stay on the cached
// path without a statement, with or without a session cookie.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { readerOf, setPageAccess } from '../../models/pages/access.js';
import { saveMenu } from '../../models/pages/menus.js';
import { getPublishedPageBySegments, listPublicChildPages } from '../../models/pages/public.js';
import { AdminClient, ADMIN_PERMISSIONS } from '../support/admin-client.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller, makeRole } from '../support/fixtures.js';
import { countStatements, listening, makePage, settled, userWith } from './helpers.js';

const PRIVATE = 'private, no-store';

describe('pages for members', () => {
  let app: App;
  let ctx: AppContext;
  let roleId: number;
  let pages: { club: number; agenda: number; bureau: number; ouvert: number };
  let member: { cookie: string };
  let boardMember: { cookie: string };
  let editor: { cookie: string; id: number };

  before(async () => {
    app = createTestApp();
    ctx = contextOf(app);
    await listening(ctx);
  });
  after(() => closeTestApp(app));

  beforeEach(async () => {
    await resetData(ctx);
    roleId = await makeRole(ctx, [], 'bureau');
    const club = await makePage(ctx, { title: 'Club secretissime', slug: 'club', template: 'default' });
    const agenda = await makePage(ctx, { title: 'Agenda secretissime', slug: 'agenda', parent_id: club.id });
    const bureau = await makePage(ctx, { title: 'Bureau secretissime', slug: 'bureau' });
    const ouvert = await makePage(ctx, { title: 'Ouvert', slug: 'ouvert', blocks: [{ type: 'children' }] as never });
    await setPageAccess(ctx, club.id, { access: 'members', access_roles: [] }, null);
    await setPageAccess(ctx, bureau.id, { access: 'roles', access_roles: [roleId] }, null);
    pages = { club: club.id, agenda: agenda.id, bureau: bureau.id, ouvert: ouvert.id };
    member = await caller(ctx, { role: 'user', password: null });
    const board = await caller(ctx, { role: 'user', password: null });
    await ctx.db('app_auth_user_roles').insert({ user_id: board.id, role_id: roleId });
    boardMember = board;
    editor = await userWith(ctx, ['admin.access', 'pages.view', 'pages.manage', 'pages.publish']);
    await settled(ctx);
  });

  const get = (path: string, cookie?: string) => {
    const req = request(app).get(path);
    return cookie ? req.set('Cookie', cookie) : req;
  };

  describe('on the site', () => {
    it('sends an anonymous visitor to the login page and back, the subtree included, never stored by a proxy', async () => {
      for (const path of ['/club', '/club/agenda', '/bureau']) {
        const res = await get(path);
        expect(res.status, path).to.equal(302);
        expect(res.headers.location, path).to.equal(`/auth/login?next=${encodeURIComponent(path)}`);
        expect(res.headers['cache-control'], path).to.equal(PRIVATE);
      }
      const login = await get('/auth/login?next=%2Fclub');
      expect(login.status).to.equal(200);
      expect(login.text).to.contain('value="/club"');
    });

    it('shows a members page to any signed-in account, and a role’s page only to its holders (403 otherwise)', async () => {
      const club = await get('/club/agenda', member.cookie);
      expect(club.status).to.equal(200);
      expect(club.text).to.contain('Agenda secretissime');
      expect(club.headers['cache-control']).to.equal(PRIVATE);
      expect(club.text).to.contain('noindex');

      const refused = await get('/bureau', member.cookie);
      expect(refused.status).to.equal(403);
      expect(refused.headers['cache-control']).to.equal(PRIVATE);
      expect(refused.text).to.contain('Accès réservé');
      expect(refused.text).not.to.contain('Bureau secretissime');

      const board = await get('/bureau', boardMember.cookie);
      expect(board.status).to.equal(200);
      expect(board.text).to.contain('Bureau secretissime');
      expect((await get('/bureau', editor.cookie)).status, 'pages.view reads every page').to.equal(200);
    });

    it('lists a members page’s children to its reader only, and never on a shared page', async () => {
      await makePage(ctx, { title: 'Sous-page du club', slug: 'sous', parent_id: pages.agenda });
      await ctx
        .db('app_pages')
        .where({ id: pages.agenda })
        .update({ blocks: JSON.stringify([{ id: 'c1', type: 'children' }]) });
      await settled(ctx);
      expect((await get('/club/agenda', member.cookie)).text).to.contain('/club/agenda/sous');
      const shared = await get('/ouvert', member.cookie);
      expect(shared.status).to.equal(200);
      expect(shared.text).not.to.contain('secretissime');
    });
  });

  describe('the public cache and the proxies', () => {
    it('never stores a members page: a member’s visit fills nothing an anonymous visitor gets', async () => {
      for (let round = 0; round < 2; round++) {
        expect((await get('/club', member.cookie)).status).to.equal(200);
        expect((await get('/bureau', boardMember.cookie)).status).to.equal(200);
        expect((await request(app).get('/app/api/pages/by-path?path=club').set('Cookie', member.cookie)).status).to.equal(200);
      }
      expect(ctx.publicCache.peek('html:/club')).to.equal(undefined);
      expect(ctx.publicCache.peek('html:/bureau')).to.equal(undefined);
      expect(ctx.publicCache.peek('api:club')).to.equal(undefined);
      const anonymous = await get('/club');
      expect(anonymous.status).to.equal(302);
      expect(anonymous.text).not.to.contain('secretissime');
      expect((await request(app).get('/app/api/pages/by-path?path=club')).status).to.equal(401);
      // Nor is its path remembered as unknown: it still answers its members.
      expect((await get('/club', member.cookie)).status).to.equal(200);
    });

    it('keeps everyone-pages on the cached path: no statement, with or without a session cookie', async () => {
      const first = await get('/ouvert');
      expect(first.status).to.equal(200);
      expect(first.headers['cache-control']).to.match(/^public, /);
      for (const cookie of [undefined, member.cookie]) {
        const { result, count } = await countStatements(ctx, () => get('/ouvert', cookie).then((res) => res));
        expect(result.status).to.equal(200);
        expect(count, cookie ? 'with a session cookie' : 'anonymous').to.equal(0);
        expect(result.text).to.equal(first.text);
      }
    });

    it('drops what anonymous visitors were shown once a page is restricted', async () => {
      expect((await get('/ouvert')).status).to.equal(200);
      expect((await get('/sitemap.xml')).status).to.equal(200);
      await setPageAccess(ctx, pages.ouvert, { access: 'members', access_roles: [] }, null);
      await settled(ctx);
      expect((await get('/ouvert')).status).to.equal(302);
      const sitemap = await get('/sitemap-1.xml');
      expect(sitemap.text).not.to.contain('/ouvert');
      // And back for everyone.
      await setPageAccess(ctx, pages.ouvert, { access: 'everyone', access_roles: [] }, null);
      await settled(ctx);
      expect((await get('/ouvert')).status).to.equal(200);
    });
  });

  describe('GET /app/api/pages/by-path', () => {
    it('answers 401 anonymous, 403 without the role, the row with it; private to proxies', async () => {
      const anonymous = await request(app).get('/app/api/pages/by-path?path=club/agenda');
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers['cache-control']).to.equal(PRIVATE);
      expect(JSON.stringify(anonymous.body)).not.to.contain('secretissime');

      const refused = await request(app).get('/app/api/pages/by-path?path=bureau').set('Cookie', member.cookie);
      expect(refused.status).to.equal(403);
      expect(refused.body.code).to.equal('access_forbidden');

      const allowed = await request(app).get('/app/api/pages/by-path?path=bureau').set('Cookie', boardMember.cookie);
      expect(allowed.status).to.equal(200);
      expect(allowed.headers['cache-control']).to.equal(PRIVATE);
      expect(allowed.body).to.include({ id: pages.bureau, access: 'roles' });
      expect(allowed.body.access_roles).to.deep.equal([roleId]);
      expect(allowed.body).not.to.have.property('restricted');

      const open = await request(app).get('/app/api/pages/by-path?path=ouvert');
      expect(open.body).to.include({ access: 'everyone' });
      expect(open.headers['cache-control']).to.match(/^public, /);
    });
  });

  describe('child lists', () => {
    it('leaves members pages out of the shared lists, for everyone', async () => {
      for (const cookie of [undefined, member.cookie, boardMember.cookie]) {
        const res = await get('/app/api/pages', cookie);
        expect(res.status).to.equal(200);
        expect(res.body.items.map((item: { slug: string }) => item.slug)).to.deep.equal(['ouvert']);
      }
    });

    it('answers a members page’s list by its rules: 401, 403, or the list', async () => {
      expect((await get('/app/api/pages?parent=club')).status).to.equal(401);
      expect((await get(`/app/api/pages?parent=${pages.club}`)).status).to.equal(401);
      expect((await get('/app/api/pages?parent=bureau', member.cookie)).status).to.equal(403);
      const list = await get('/app/api/pages?parent=club', member.cookie);
      expect(list.status).to.equal(200);
      expect(list.headers['cache-control']).to.equal(PRIVATE);
      expect(list.body.items.map((item: { url: string }) => item.url)).to.deep.equal(['/club/agenda']);
    });

    it('server functions take the reader into account', async () => {
      expect((await listPublicChildPages(ctx, null)).map((page) => page.slug)).to.deep.equal(['ouvert']);
      const memberReader = readerOf({ roles: ['user'], permissions: [] });
      const boardReader = readerOf({ roles: ['user', 'bureau'], permissions: [] });
      expect((await listPublicChildPages(ctx, null, { reader: memberReader })).map((page) => page.slug)).to.deep.equal(['club', 'ouvert']);
      expect((await listPublicChildPages(ctx, null, { reader: boardReader })).map((page) => page.slug)).to.deep.equal(['bureau', 'club', 'ouvert']);
      expect(await listPublicChildPages(ctx, pages.club)).to.deep.equal([]);
      expect((await listPublicChildPages(ctx, pages.club, { reader: memberReader })).map((page) => page.url)).to.deep.equal(['/club/agenda']);
      expect(await getPublishedPageBySegments(ctx, ['club', 'agenda'])).to.equal(null);
      expect((await getPublishedPageBySegments(ctx, ['club', 'agenda'], memberReader))?.id).to.equal(pages.agenda);
      expect(await getPublishedPageBySegments(ctx, ['bureau'], memberReader)).to.equal(null);
      expect((await getPublishedPageBySegments(ctx, ['bureau'], boardReader))?.id).to.equal(pages.bureau);
    });
  });

  describe('navigation, menus, sitemap and search', () => {
    const links = (html: string) => [...html.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]);

    it('never shows a members page in the navigation nor in a menu, whoever reads', async () => {
      for (const cookie of [undefined, member.cookie, boardMember.cookie]) {
        const html = (await get('/ouvert', cookie)).text;
        expect(links(html)).to.include('/ouvert');
        expect(html).not.to.contain('secretissime');
        expect(links(html)).not.to.include.members(['/club', '/bureau']);
      }
      await saveMenu(ctx, 'header', [
        { label: null, page_id: pages.club, url: null, children: [] },
        { label: null, page_id: pages.bureau, url: null, children: [] },
        { label: null, page_id: pages.ouvert, url: null, children: [] },
      ]);
      await settled(ctx);
      for (const cookie of [undefined, member.cookie, boardMember.cookie]) {
        for (const path of ['/ouvert', '/club', '/bureau']) {
          const res = await get(path, cookie);
          if (res.status !== 200) continue;
          expect(res.text, path).not.to.contain('href="/bureau"');
          expect(res.text, path).not.to.contain('href="/club"');
        }
      }
    });

    it('leaves members pages out of the sitemap', async () => {
      const index = await get('/sitemap.xml');
      expect(index.status).to.equal(200);
      const file = await get('/sitemap-1.xml');
      expect(file.text).to.contain('/ouvert');
      for (const path of ['/club', '/club/agenda', '/bureau']) expect(file.text).not.to.contain(`${path}<`);
    });

    it('never finds a members page in search, whoever searches', async () => {
      for (const cookie of [undefined, member.cookie, boardMember.cookie]) {
        const api = await get('/app/api/pages/search?q=secretissime', cookie);
        expect(api.status).to.equal(200);
        expect(api.body.total).to.equal(0);
        const page = await get('/recherche?q=secretissime', cookie);
        expect(page.status).to.equal(200);
        expect(page.text).not.to.contain('/club');
      }
      const { rows } = await ctx.db.raw('SELECT page_id FROM app_page_search WHERE visible ORDER BY page_id');
      expect(rows.map((row: { page_id: number }) => row.page_id)).to.deep.equal([pages.ouvert]);
    });
  });

  describe('the editor’s «Accès»', () => {
    it('shows the rule and the roles, and saves a new rule at once (pages.publish)', async () => {
      const client = await AdminClient.as(app, { permissions: ADMIN_PERMISSIONS });
      const screen = await client.get(`/admin/pages/${pages.ouvert}`);
      expect(screen.status).to.equal(200);
      expect(screen.text).to.contain('id="property-access"');
      expect(screen.text).to.contain('form="page-access-form" name="access_roles" value="' + roleId + '"');
      const saved = await client.post(`/admin/pages/${pages.ouvert}/access`, { access: 'roles', access_roles: String(roleId) }, `/admin/pages/${pages.ouvert}`);
      expect(saved.status).to.equal(303);
      expect((await client.follow(saved)).text).to.contain('réservées aux rôles choisis');
      expect(await ctx.db('app_pages').where({ id: pages.ouvert }).first('access', 'access_roles', 'restricted')).to.deep.equal({
        access: 'roles',
        access_roles: [roleId],
        restricted: true,
      });
      await settled(ctx);
      expect((await get('/ouvert', member.cookie)).status).to.equal(403);
      const refused = await client.post(`/admin/pages/${pages.ouvert}/access`, { access: 'roles' }, `/admin/pages/${pages.ouvert}`);
      expect(refused.status).to.equal(400);
      expect(refused.text).to.contain('Choisissez au moins un rôle');
    });

    it('refuses the change to whoever may only write drafts', async () => {
      const client = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage'] });
      const screen = await client.get(`/admin/pages/${pages.ouvert}`);
      expect(screen.text).not.to.contain('id="page-access-form"');
      const refused = await client.post(`/admin/pages/${pages.ouvert}/access`, { access: 'members' }, `/admin/pages/${pages.ouvert}`);
      expect(refused.status).to.equal(403);
      expect((await ctx.db('app_pages').where({ id: pages.ouvert }).first('access'))?.access).to.equal('everyone');
    });
  });

  describe('the admin API', () => {
    const api = (method: 'post' | 'put', path: string, body: object) =>
      request(app)[method](`/app/api/admin/pages${path}`).set('Cookie', editor.cookie).send(body);

    it('creates and changes a page’s access in one write, recorded in the audit log', async () => {
      const created = await api('post', '', { title: 'Réservé', access: 'roles', access_roles: [roleId] });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ access: 'roles' });
      expect(created.body.access_roles).to.deep.equal([roleId]);
      expect((await get('/reserve')).status).to.equal(302);

      const shown = await request(app).get(`/app/api/admin/pages/${created.body.id}`).set('Cookie', editor.cookie);
      expect(shown.body).to.include({ access: 'roles' });

      const opened = await api('put', `/${created.body.id}`, { access: 'everyone' });
      expect(opened.status).to.equal(200);
      expect(opened.body).to.include({ access: 'everyone' });
      expect(opened.body.access_roles).to.deep.equal([]);
      await settled(ctx);
      expect((await get('/reserve')).status).to.equal(200);

      const events = await ctx
        .db('app_audit_events')
        .where({ action: 'page.access_changed', target_id: String(created.body.id) })
        .orderBy('id');
      expect(events).to.have.length(2);
    });

    it('refuses a role rule without an existing role, writing nothing', async () => {
      const none = await api('post', '', { title: 'Sans rôle', access: 'roles', access_roles: [] });
      expect(none.status).to.equal(400);
      const unknown = await api('post', '', { title: 'Rôle inconnu', access: 'roles', access_roles: [999999] });
      expect(unknown.status).to.equal(400);
      const written = await ctx.db('app_pages').whereIn('slug', ['sans-role', 'role-inconnu']).count({ n: '*' }).first();
      expect(Number(written?.n)).to.equal(0);
      expect((await api('put', `/${pages.ouvert}`, { access: 'nobody' })).status).to.equal(400);
    });

    it('keeps a copy’s access', async () => {
      const copy = await request(app)
        .post(`/app/api/admin/pages/${pages.bureau}/duplicate`)
        .set('Cookie', editor.cookie)

        .set('Content-Type', 'application/json');
      expect(copy.status).to.equal(201);
      expect(copy.body).to.include({ access: 'roles' });
    });
  });
});
