// What the settings change on the public site: the title and tagline in the header and
// <title>, the logo, the accent colour (a stylesheet named after it), the footer's
// Markdown subset (escaped, safe links only), the default social image, «noindex» on
// every page and in robots.txt, the home page, and the dates in the site's time zone.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { updatePage } from '../../models/pages/pages.js';
import { changeSettings } from '../../services/site-settings.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { countStatements, makeChain, makePage, userWith } from '../pages/helpers.js';
import { PNG_1X1 } from '../support/fixtures.js';

const SYSTEM = { userId: null, name: null, ip: null, userAgent: null, requestId: 'test' };

function headOf(html: string): string {
  return /<head>([\s\S]*?)<\/head>/.exec(html)?.[1] ?? '';
}

describe('site settings on the public site', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    await makeChain(ctx, 2, 'p');
  });

  const get = (path: string) => request(app).get(path);

  it('shows APP_NAME while no title was chosen, then the title and tagline in the header, <title> and the shared link’s card', async () => {
    const before = await get('/p1');
    expect(before.text).to.include('<title>p1 — Site de test</title>');
    expect(before.text).to.include('<a class="site-name" href="/">Site de test</a>');
    expect(before.text).to.not.include('site-tagline');
    await changeSettings(ctx, SYSTEM, { title: 'Les Jardins & Cie', tagline: 'Des <plantes> pour tous' });
    for (const path of ['/p1', '/p1/p2', '/']) {
      const res = await get(path);
      expect(res.status, path).to.equal(200);
      expect(res.text, path).to.include('<a class="site-name" href="/">Les Jardins &amp; Cie</a>');
      expect(res.text, path).to.include('<p class="site-tagline">Des &lt;plantes&gt; pour tous</p>');
      expect(res.text, path).to.include('<meta property="og:site_name" content="Les Jardins &amp; Cie">');
      // A page without its own description is shared with the tagline, as a summary card (no picture).
      expect(res.text, path).to.include('<meta property="og:description" content="Des &lt;plantes&gt; pour tous">');
      expect(res.text, path).to.include('<meta name="twitter:card" content="summary">');
    }
    expect((await get('/p1')).text).to.include('<title>p1 — Les Jardins &amp; Cie</title>');
    expect((await ctx.db('app_site_settings').first())?.title).to.equal('Les Jardins & Cie');
  });

  it('shows the title on the 404 page once this process holds the settings, reading nothing for it', async () => {
    await changeSettings(ctx, SYSTEM, { title: 'Les Jardins' });
    expect((await get('/p1')).status).to.equal(200);
    const { result, count } = await countStatements(ctx, () =>
      request(app)
        .get('/Pas_Une_Page')
        .then((res) => res),
    );
    expect(result.status).to.equal(404);
    expect(result.text).to.include('<a class="site-name" href="/">Les Jardins</a>');
    expect(count).to.equal(0);
  });

  it('shows the logo in the header and the accent colour as a stylesheet named after it', async () => {
    const admin = await userWith(ctx, ['admin.access', 'settings.manage']);
    const logo = await request(app).post('/app/api/admin/settings/logo').set('Cookie', admin.cookie).attach('file', PNG_1X1, 'logo.png');
    await changeSettings(ctx, SYSTEM, { accent_colour: '#aa3300' });
    const res = await get('/p1');
    expect(res.text).to.include(`<img class="site-logo" src="${logo.body.logo_url}" alt="" height="40">`);
    expect(headOf(res.text)).to.include('<link rel="stylesheet" href="/site-accent/aa3300.css">');
    const css = await get('/site-accent/aa3300.css');
    expect(css.status).to.equal(200);
    expect(css.headers['content-type']).to.equal('text/css; charset=utf-8');
    expect(css.headers['cache-control']).to.include('immutable');
    expect(css.text).to.equal(':root { --accent: #aa3300; }\n');
    expect((await get('/site-accent/AA3300.css')).status).to.equal(400);
    expect((await get('/site-accent/aa33.css')).status).to.equal(400);
    expect((await ctx.db('app_site_settings').first())?.accent_colour).to.equal('#aa3300');
  });

  it('renders the footer’s Markdown subset, escaped, with safe links only', async () => {
    await changeSettings(ctx, SYSTEM, {
      footer: '© *Les Jardins* — [contact](https://exemple.fr/contact)\n\n<script>alert(1)</script> [piège](javascript:alert(1))',
    });
    const footer = /<footer class="site-footer">([\s\S]*?)<\/footer>/.exec((await get('/p1')).text)?.[1] ?? '';
    expect(footer).to.include('<p>© <em>Les Jardins</em> — <a href="https://exemple.fr/contact">contact</a></p>');
    expect(footer).to.include('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(footer).to.not.include('href="javascript:');
    expect(footer).to.not.include('<script>');
  });

  it('gives a page without an image the default social image, and keeps a page’s own', async () => {
    const admin = await userWith(ctx, ['admin.access', 'settings.manage']);
    const uploaded = await request(app).post('/app/api/admin/settings/social-image').set('Cookie', admin.cookie).attach('file', PNG_1X1, 'partage.png');
    const url: string = uploaded.body.social_image_url;
    expect(headOf((await get('/p1')).text)).to.include(`<meta property="og:image" content="http://site.test${url}">`);
    await makePage(ctx, { title: 'Illustrée', slug: 'illustree', seo: { image: '/uploads/media/0123456789abcdef0123456789abcdef.png' } });
    const own = headOf((await get('/illustree')).text);
    expect(own).to.include('<meta property="og:image" content="http://site.test/uploads/media/0123456789abcdef0123456789abcdef.png">');
    expect(own).to.not.include(url);
  });

  it('with «noindex»: the robots meta on every page and Disallow: / in robots.txt; without, neither', async () => {
    expect(headOf((await get('/p1')).text)).to.not.include('name="robots"');
    const open = await get('/robots.txt');
    expect(open.text).to.include('Disallow: /admin$');
    expect(open.text).to.not.match(/^Disallow: \/$/m);
    await changeSettings(ctx, SYSTEM, { noindex: true });
    for (const path of ['/', '/p1', '/p1/p2']) expect(headOf((await get(path)).text), path).to.include('<meta name="robots" content="noindex">');
    const closed = await get('/robots.txt');
    expect(closed.status).to.equal(200);
    expect(closed.text).to.equal('User-agent: *\nDisallow: /\n');
    await changeSettings(ctx, SYSTEM, { noindex: false });
    expect((await get('/robots.txt')).text).to.include('Sitemap: http://site.test/sitemap.xml');
    expect((await ctx.db('app_site_settings').first())?.noindex).to.equal(false);
  });

  it('answers / with the chosen home page, else today’s rule (the root page «accueil», else the list)', async () => {
    expect((await get('/')).text).to.include('<h1>Site de test</h1>');
    const accueil = await makePage(ctx, { title: 'Bienvenue', slug: 'accueil' });
    expect((await get('/')).text).to.include('Bienvenue');
    const [, chosen] = await makeChain(ctx, 2, 'maison');
    await changeSettings(ctx, SYSTEM, { home_page_id: chosen });
    const home = await get('/');
    expect(home.status).to.equal(200);
    expect(home.text).to.include('<title>maison2 — Site de test</title>');
    // The chosen page made private: today's rule again, at once.
    await updatePage(ctx, chosen, { visibility: 'private' });
    expect((await get('/')).text).to.include('<title>Bienvenue — Site de test</title>');
    await updatePage(ctx, chosen, { visibility: 'public' });
    expect((await get('/')).text).to.include('<title>maison2 — Site de test</title>');
    expect((await ctx.db('app_site_settings').first())?.home_page_id).to.equal(chosen);
    // The home page's canonical address is `/`; `accueil`, no longer the home page, keeps its own.
    expect((await get('/maison1/maison2')).text).to.include('<link rel="canonical" href="http://site.test/">');
    expect((await get('/accueil')).text).to.include('<link rel="canonical" href="http://site.test/accueil">');
    expect(accueil.id).to.be.a('number');
  });

  it('lists the chosen home page as `/` in the navigation, the menus and the sitemap, and «accueil» at its own address', async () => {
    const accueil = await makePage(ctx, { title: 'Ancien accueil', slug: 'accueil' });
    const chosen = await makePage(ctx, { title: 'Maison', slug: 'maison' });
    const links = (html: string) =>
      [...(/<nav class="site-nav"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '').matchAll(/<a href="([^"]*)"[^>]*>([^<]*)</g)].map((m) => `${m[2]} ${m[1]}`);
    // Before a choice: «accueil» is the home link itself.
    expect(links((await get('/p1')).text)).to.deep.equal(['Accueil /', 'Maison /maison', 'p1 /p1']);
    await changeSettings(ctx, SYSTEM, { home_page_id: chosen.id });
    expect(links((await get('/p1')).text)).to.deep.equal(['Accueil /', 'Ancien accueil /accueil', 'p1 /p1']);
    const sitemap = (await get('/sitemap-1.xml')).text;
    const urls = [...sitemap.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]).sort();
    expect(urls).to.deep.equal(['http://site.test/', 'http://site.test/accueil', 'http://site.test/p1', 'http://site.test/p1/p2']);
    // A menu's link to the home page points to `/`.
    const admin = await userWith(ctx, ['admin.access', 'menus.manage']);
    const saved = await request(app)
      .put('/app/api/admin/menus/header')
      .set('Cookie', admin.cookie)
      .send({ items: [{ page_id: chosen.id }, { page_id: accueil.id }] });
    expect(saved.status).to.equal(200);
    expect(links((await get('/p1')).text)).to.deep.equal(['Maison /', 'Ancien accueil /accueil']);
    expect((await ctx.db('app_site_settings').first())?.home_page_id).to.equal(chosen.id);
  });

  it('shows dates in the site’s time zone when one is named (the views’ date filters)', () => {
    const instant = new Date('2026-07-01T12:00:00Z');
    const render = (zone: string) => ctx.views.renderString('{{ at | frenchDateTime(zone) }}', { at: instant, zone });
    // French typography: a narrow no-break space around «h».
    expect(render('Europe/Paris')).to.match(/1er\sjuillet\s2026\sà\s14\sh\s00$/);
    expect(render('America/Montreal')).to.match(/1er\sjuillet\s2026\sà\s8\sh\s00$/);
    expect(render('')).to.match(/à\s14\sh\s00$/);
  });
});
