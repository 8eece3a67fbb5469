// The site's menus: GET/PUT /app/api/admin/menus/:name (menus.manage), what the public
// site shows from them (the header's navigation, the footer), the built-in navigation
// while a menu has never been edited, and linked pages that are deleted or private.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { MENU_LIMITS } from '../../models/pages/menus.js';
import { menuMessages } from '../../models/pages/messages.js';
import { deletePage } from '../../models/pages/page-delete.js';
import { updatePage } from '../../models/pages/pages.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makePage, userWith } from './helpers.js';

const API = '/app/api/admin/menus';

/** The links of a `<nav class="…">` of the page: [href, text] pairs, sub-links as `  text`. */
function linksOf(html: string, navClass: string): string[] {
  const nav = new RegExp(`<nav class="${navClass}"[^>]*>([\\s\\S]*?)</nav>`).exec(html)?.[1] ?? '';
  const links: string[] = [];
  let depth = 0;
  for (const match of nav.matchAll(/<(\/?)ul[^>]*>|<a href="([^"]*)"[^>]*>([^<]*)<\/a>/g)) {
    if (match[0].startsWith('<ul')) depth += 1;
    else if (match[0].startsWith('</ul')) depth -= 1;
    else links.push(`${depth > 1 ? '  ' : ''}${match[3]} ${match[2]}`);
  }
  return links;
}

/** The footer's content, between its tags. */
function footerOf(html: string): string {
  return (/<footer class="site-footer">([\s\S]*?)<\/footer>/.exec(html)?.[1] ?? '').trim();
}

describe('menus (/app/api/admin/menus/:name and the public site)', () => {
  let app: App;
  let ctx: AppContext;
  let editor: { id: number; cookie: string };
  let guides: { id: number };
  let installer: { id: number };
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    editor = await userWith(ctx, ['admin.access', 'menus.manage']);
    guides = await makePage(ctx, { title: 'Guides', slug: 'guides' });
    installer = await makePage(ctx, { title: 'Installer', slug: 'installer', parent_id: guides.id });
    await makePage(ctx, { title: 'Contact', slug: 'contact' });
  });
  const put = (name: string, body: unknown, cookie = editor.cookie) =>
    request(app)
      .put(`${API}/${name}`)
      .set('Cookie', cookie)
      .send(body as object);
  const get = (name: string, cookie = editor.cookie) => request(app).get(`${API}/${name}`).set('Cookie', cookie);

  it('gives an empty menu while it has never been edited; PUT replaces it, GET gives it back as stored, and the change is audited', async () => {
    for (const name of ['header', 'footer']) {
      const empty = await get(name);
      expect(empty.status).to.equal(200);
      expect(empty.body).to.deep.equal({ items: [] });
    }
    const items = [
      { label: 'Accueil', url: '/' },
      {
        page_id: guides.id,
        children: [
          { page_id: installer.id, label: '  Bien démarrer  ' },
          { label: 'Documentation', url: 'https://example.org/docs?v=2#api' },
        ],
      },
      { label: 'Écrire', url: 'mailto:contact@example.org', page_id: null, children: [] },
    ];
    const saved = await put('header', { items });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    const expected = [
      { label: 'Accueil', page_id: null, url: '/', children: [] },
      {
        label: null,
        page_id: guides.id,
        url: null,
        children: [
          { label: 'Bien démarrer', page_id: installer.id, url: null, children: [] },
          { label: 'Documentation', page_id: null, url: 'https://example.org/docs?v=2#api', children: [] },
        ],
      },
      { label: 'Écrire', page_id: null, url: 'mailto:contact@example.org', children: [] },
    ];
    expect(saved.body).to.deep.equal({ items: expected });
    expect((await get('header')).body).to.deep.equal({ items: expected });
    expect((await get('footer')).body).to.deep.equal({ items: [] });
    // What GET gives, PUT takes back unchanged.
    expect((await put('header', (await get('header')).body)).body).to.deep.equal({ items: expected });

    const rows = await ctx.db('app_page_menus').select('name', 'items', 'updated_by');
    expect(rows).to.deep.equal([{ name: 'header', items: expected, updated_by: editor.id }]);
    const events = await ctx.db('app_audit_events').where({ action: 'menu.updated' }).select('actor_id', 'target_type', 'target_id');
    expect(events).to.deep.equal([
      { actor_id: editor.id, target_type: 'menu', target_id: 'header' },
      { actor_id: editor.id, target_type: 'menu', target_id: 'header' },
    ]);

    // An empty menu is a menu: stored, and the header then shows no link.
    expect((await put('header', { items: [] })).body).to.deep.equal({ items: [] });
    expect(await ctx.db('app_page_menus').where({ name: 'header' }).first('items')).to.deep.equal({ items: [] });
  });

  const tooMany = Array.from({ length: MENU_LIMITS.items + 1 }, (_, index) => ({ label: `L${index}`, url: `/l${index}` }));
  const tooManyInAll = Array.from({ length: 30 }, (_, index) => ({
    label: `L${index}`,
    url: `/l${index}`,
    children: Array.from({ length: 3 }, (__, child) => ({ label: `S${child}`, url: `/s${child}` })),
  }));
  const refusals: Array<[string, () => unknown, string, string?]> = [
    [
      'a javascript: address',
      () => ({
        items: [
          { label: 'A', url: '/a' },
          { label: 'B', url: '/b' },
          { label: 'X', url: 'javascript:alert(1)' },
        ],
      }),
      'items[2].url',
      menuMessages.urlInvalid,
    ],
    ['a data: address', () => ({ items: [{ label: 'X', url: 'data:text/html,<script>alert(1)</script>' }] }), 'items[0].url', menuMessages.urlInvalid],
    ['an ftp: address', () => ({ items: [{ label: 'X', url: 'ftp://example.org/f' }] }), 'items[0].url', menuMessages.urlInvalid],
    ['an address of another host without scheme', () => ({ items: [{ label: 'X', url: '//evil.example/x' }] }), 'items[0].url', menuMessages.urlInvalid],
    ['a backslash path', () => ({ items: [{ label: 'X', url: '/\\evil.example' }] }), 'items[0].url', menuMessages.urlInvalid],
    ['an http: address without a host', () => ({ items: [{ label: 'X', url: 'http://' }] }), 'items[0].url', menuMessages.urlInvalid],
    ['a relative address', () => ({ items: [{ label: 'X', url: 'contact' }] }), 'items[0].url', menuMessages.urlInvalid],
    ['an address of a sub-link', () => ({ items: [{ label: 'A', url: '/a', children: [{ label: 'X', url: 'vbscript:x' }] }] }), 'items[0].children[0].url'],
    ['a page and an address', () => ({ items: [{ page_id: guides.id, url: '/guides' }] }), 'items[0].url', menuMessages.targetBoth],
    ['neither a page nor an address', () => ({ items: [{ label: 'Rien' }] }), 'items[0].url', menuMessages.targetMissing],
    ['an address without a label', () => ({ items: [{ url: '/a' }] }), 'items[0].label', menuMessages.labelRequired],
    ['an address with an empty label', () => ({ items: [{ label: '  ', url: '/a' }] }), 'items[0].label'],
    ['a label on two lines', () => ({ items: [{ label: 'Deux\nlignes', url: '/a' }] }), 'items[0].label'],
    ['a label with a bidirectional override', () => ({ items: [{ label: 'abc\u202Edef', page_id: guides.id }] }), 'items[0].label'],
    ['a label too long', () => ({ items: [{ label: 'x'.repeat(MENU_LIMITS.label + 1), url: '/a' }] }), 'items[0].label'],
    ['an address too long', () => ({ items: [{ label: 'A', url: '/' + 'a'.repeat(MENU_LIMITS.url) }] }), 'items[0].url'],
    [
      'a sub-link with sub-links',
      () => ({ items: [{ label: 'A', url: '/a', children: [{ label: 'B', url: '/b', children: [{ label: 'C', url: '/c' }] }] }] }),
      'items[0].children[0].children',
      menuMessages.tooDeep,
    ],
    ['a page that does not exist', () => ({ items: [{ label: 'A', url: '/a' }, { page_id: 999999 }] }), 'items[1].page_id', menuMessages.pageMissing],
    ['a page id that is not a number', () => ({ items: [{ page_id: 'un' }] }), 'items[0].page_id'],
    ['a page id of zero', () => ({ items: [{ page_id: 0 }] }), 'items[0].page_id'],
    ['an unknown field of an item', () => ({ items: [{ label: 'A', url: '/a', target: '_blank' }] }), 'items[0].target'],
    ['items that are not a list', () => ({ items: { label: 'A' } }), 'items'],
    ['no items', () => ({}), 'items'],
    ['an unknown field', () => ({ items: [], name: 'header' }), 'name'],
    ['more top-level links than a menu holds', () => ({ items: tooMany }), 'items'],
    ['more links in all than a menu holds', () => ({ items: tooManyInAll }), 'items', menuMessages.tooMany(MENU_LIMITS.total)],
    ['NUL in a label', () => ({ items: [{ label: 'A\u0000', url: '/a' }] }), 'items[0].label'],
  ];
  for (const [why, body, field, message] of refusals) {
    it(`refuses ${why} with 400 naming ${field}, writing nothing`, async () => {
      const res = await put('footer', body());
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.details.map((detail: { field: string }) => detail.field)).to.include(field);
      if (message) expect(res.body.details.find((detail: { field: string }) => detail.field === field).message).to.equal(message);
      expect(await ctx.db('app_page_menus').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
      expect(await ctx.db('app_audit_events').where({ action: 'menu.updated' }).count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    });
  }

  it('answers 404 for a menu other than header and footer, 403 without menus.manage, 401 without a session, writing nothing', async () => {
    for (const name of ['sidebar', 'HEADER', 'header2']) {
      expect((await get(name)).status, name).to.equal(404);
      const res = await put(name, { items: [] });
      expect(res.status, name).to.equal(404);
      expect(res.body.code).to.equal('not_found');
    }
    const pagesEditor = await userWith(ctx, ['admin.access', 'pages.view', 'pages.manage', 'pages.publish']);
    expect((await get('header', pagesEditor.cookie)).status).to.equal(403);
    expect((await put('header', { items: [] }, pagesEditor.cookie)).status).to.equal(403);
    expect((await request(app).get(`${API}/header`)).status).to.equal(401);
    expect((await request(app).put(`${API}/header`).send({ items: [] })).status).to.equal(401);
    expect(await ctx.db('app_page_menus').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('keeps a link to a page deleted since (what GET gave PUT takes back), and refuses only new unknown pages', async () => {
    const doomed = await makePage(ctx, { title: 'Éphémère', slug: 'ephemere' });
    await put('footer', { items: [{ page_id: doomed.id }] });
    await deletePage(ctx, doomed.id);
    const again = await put('footer', (await get('footer')).body);
    expect(again.status).to.equal(200);
    expect(again.body.items).to.deep.equal([{ label: null, page_id: doomed.id, url: null, children: [] }]);
    const other = await put('footer', { items: [{ page_id: doomed.id }, { page_id: doomed.id + 1000 }] });
    expect(other.status).to.equal(400);
    expect(other.body.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['items[1].page_id']);
  });

  describe('on the public site', () => {
    it('shows today’s navigation and footer while no menu has been edited', async () => {
      const home = await request(app).get('/guides');
      expect(home.status).to.equal(200);
      expect(linksOf(home.text, 'site-nav')).to.deep.equal(['Accueil /', 'Contact /contact', 'Guides /guides']);
      expect(footerOf(home.text)).to.equal('<a href="/">Accueil</a>');
      expect(home.text).not.to.include('footer-nav');
    });

    it('shows the header’s menu in place of the navigation, with its sub-links, and the footer’s menu in the footer', async () => {
      await put('header', {
        items: [
          { label: 'Accueil', url: '/' },
          {
            page_id: guides.id,
            children: [
              { page_id: installer.id, label: 'Bien démarrer' },
              { label: 'Docs', url: 'https://example.org/docs' },
            ],
          },
        ],
      });
      await put('footer', {
        items: [
          { label: 'Écrire', url: 'mailto:contact@example.org' },
          { label: 'Mentions', url: '/contact' },
        ],
      });
      const page = await request(app).get('/guides/installer');
      expect(page.status).to.equal(200);
      expect(linksOf(page.text, 'site-nav')).to.deep.equal([
        'Accueil /',
        'Guides /guides',
        '  Bien démarrer /guides/installer',
        '  Docs https://example.org/docs',
      ]);
      expect(linksOf(page.text, 'footer-nav')).to.deep.equal(['Écrire mailto:contact@example.org', 'Mentions /contact']);
      // The page shown and its section are marked.
      expect(page.text).to.include('<a href="/guides/installer" aria-current="page">Bien démarrer</a>');
      expect(page.text).to.include('<a href="/guides" aria-current="true">Guides</a>');
      // Contact is a root page, but the edited header no longer lists the root pages.
      expect(linksOf(page.text, 'site-nav').join()).not.to.include('Contact');
    });

    it('labels a page link with the page’s current title and address: a renamed or moved page changes its link', async () => {
      await put('header', { items: [{ page_id: installer.id }] });
      expect(linksOf((await request(app).get('/contact')).text, 'site-nav')).to.deep.equal(['Installer /guides/installer']);
      await updatePage(ctx, installer.id, { title: 'Installer le site' });
      await updatePage(ctx, guides.id, { slug: 'aide' });
      expect(linksOf((await request(app).get('/contact')).text, 'site-nav')).to.deep.equal(['Installer le site /aide/installer']);
    });

    it('leaves out a link to a deleted page, a private page or a page under a private one, moving its sub-links up in its place', async () => {
      const hidden = await makePage(ctx, { title: 'Brouillon', slug: 'brouillon', visibility: 'private' });
      const doomed = await makePage(ctx, { title: 'Éphémère', slug: 'ephemere' });
      await put('header', {
        items: [
          { page_id: doomed.id, children: [{ label: 'Dessous', url: '/dessous' }] },
          { page_id: hidden.id },
          { page_id: installer.id },
          { label: 'Fin', url: '/fin' },
        ],
      });
      await deletePage(ctx, doomed.id);
      await updatePage(ctx, guides.id, { visibility: 'private' });
      const page = await request(app).get('/contact');
      expect(linksOf(page.text, 'site-nav')).to.deep.equal(['Dessous /dessous', 'Fin /fin']);
      // Published again, the page comes back.
      await updatePage(ctx, guides.id, { visibility: 'public' });
      await updatePage(ctx, hidden.id, { visibility: 'public' });
      expect(linksOf((await request(app).get('/contact')).text, 'site-nav')).to.deep.equal([
        'Dessous /dessous',
        'Brouillon /brouillon',
        'Installer /guides/installer',
        'Fin /fin',
      ]);
    });

    it('links the home page (slug accueil) at /', async () => {
      const home = await makePage(ctx, { title: 'Bienvenue', slug: 'accueil' });
      await put('footer', { items: [{ page_id: home.id, label: 'Accueil' }] });
      expect(linksOf((await request(app).get('/contact')).text, 'footer-nav')).to.deep.equal(['Accueil /']);
    });
  });
});
