// The public site people use: the header's navigation (the home page and the public
// root pages, in the tree's order), breadcrumbs on every level, the Markdown subset of
// paragraphs with the link rule of link blocks, robots.txt, one type system.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { publicDir } from '../../lib/paths.js';
import { createPage } from '../../models/pages/pages.js';
import { NAVIGATION_MAX } from '../../models/pages/navigation.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makeUser } from '../support/fixtures.js';
import { assertFrenchTypography } from '../support/typography.js';
import { countStatements, makeChain, makePage, storeRawPage, withoutIds } from './helpers.js';
import { visibleText } from './site-text.js';

/** The links of the header's navigation: [href, text, aria-current or ''] */
function navigationOf(html: string): Array<[string, string, string]> {
  const nav = /<nav class="site-nav"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '';
  return [...nav.matchAll(/<a href="([^"]*)"(?: aria-current="([^"]*)")?>([^<]*)<\/a>/g)].map((match) => [match[1], match[3], match[2] ?? '']);
}

/** The breadcrumbs' items as text, or null when the page has none. */
function breadcrumbsOf(html: string): string[] | null {
  const nav = /<nav class="breadcrumbs"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1];
  return nav === undefined
    ? null
    : [...nav.matchAll(/<li[^>]*>(?:<a href="([^"]*)">)?([^<]*)/g)].map((match) => (match[1] ? `${match[2]} ${match[1]}` : match[2]));
}

/** The paragraph blocks' inner HTML. */
function paragraphsOf(html: string): string[] {
  return [...html.matchAll(/<p class="block block-paragraph">([\s\S]*?)<\/p>/g)].map((match) => match[1]);
}

describe('the public site: navigation, breadcrumbs, Markdown, robots.txt', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp({ BASE_URL: 'https://exemple.fr' });
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  describe('header and navigation', () => {
    it('shows the site name, the home link, then the public root pages in title order; never a private one nor a sub-page', async () => {
      await makePage(ctx, { title: 'Zèbres', slug: 'zebres' });
      await makePage(ctx, { title: 'Archives', slug: 'archives', visibility: 'private' });
      const contact = await makePage(ctx, { title: 'Contact', slug: 'contact' });
      await makePage(ctx, { title: 'Plan', slug: 'plan', parent_id: contact.id });
      await makePage(ctx, { title: 'Bureau', slug: 'bureau' });
      await makePage(ctx, { title: 'Accueil', slug: 'accueil' });
      const html = (await request(app).get('/contact/plan')).text;
      expect(html).to.include('<a class="site-name" href="/">Site de test</a>');
      expect(navigationOf(html)).to.deep.equal([
        ['/', 'Accueil', ''],
        ['/bureau', 'Bureau', ''],
        ['/contact', 'Contact', 'true'],
        ['/zebres', 'Zèbres', ''],
      ]);
      // The same navigation on the home page, the home link marked as the current page.
      expect(navigationOf((await request(app).get('/')).text)[0]).to.deep.equal(['/', 'Accueil', 'page']);
      expect(navigationOf((await request(app).get('/bureau')).text)[1]).to.deep.equal(['/bureau', 'Bureau', 'page']);
    });

    it(`shows at most ${NAVIGATION_MAX} root pages, the first in title order`, async () => {
      for (let index = 10; index < 10 + NAVIGATION_MAX + 3; index++) await storeRawPage(ctx, { title: `Rubrique ${index}`, slug: `r${index}` });
      const links = navigationOf((await request(app).get('/r10')).text);
      expect(links).to.have.length(NAVIGATION_MAX + 1);
      expect(links.at(-1)).to.deep.equal([`/r${10 + NAVIGATION_MAX - 1}`, `Rubrique ${10 + NAVIGATION_MAX - 1}`, '']);
    });

    it('adds no statement to a page render: the navigation, read once with the tree’s freshness, stays in memory', async () => {
      await makeChain(ctx, 3, 'p', { blocks: [{ type: 'paragraph', text: '*Texte*' }] });
      // The site's settings and the navigation, read by a first render, stay in memory until they change.
      const first = await countStatements(ctx, () =>
        request(app)
          .get('/p1')
          .then((res) => res),
      );
      expect(first.result.status).to.equal(200);
      expect(first.sql.filter((text) => text.includes('app_page_menus_render'))).to.have.length(1);
      const { result, count, sql } = await countStatements(ctx, () =>
        request(app)
          .get('/p1/p2/p3')
          .then((res) => res),
      );
      expect(result.status).to.equal(200);
      expect(navigationOf(result.text).map(([href]) => href)).to.deep.equal(['/', '/p1']);
      expect(count, sql.join('\n')).to.equal(1);
    });
  });

  describe('breadcrumbs', () => {
    it('are on every level: a root page, a third-level page; not on the home page', async () => {
      await makeChain(ctx, 3);
      await makePage(ctx, { title: 'Accueil' });
      expect(breadcrumbsOf((await request(app).get('/p1')).text)).to.deep.equal(['Accueil /', 'p1']);
      expect(breadcrumbsOf((await request(app).get('/p1/p2/p3')).text)).to.deep.equal(['Accueil /', 'p1 /p1', 'p2 /p1/p2', 'p3']);
      expect(breadcrumbsOf((await request(app).get('/')).text)).to.equal(null);
      expect(breadcrumbsOf((await request(app).get('/accueil')).text)).to.equal(null);
    });
  });

  describe('Markdown in paragraphs', () => {
    it('renders emphasis, strong, links and line breaks, and escapes HTML', async () => {
      await makePage(ctx, {
        title: 'Texte',
        blocks: [
          {
            type: 'paragraph',
            text: 'Un *mot*, un _autre_, du **gras** et [un lien](/texte "Titre") vers [ailleurs](https://exemple.org/a?b=1&c=2).\nLigne deux',
          },
          { type: 'paragraph', text: '<b>pas de HTML</b> & <script>alert(1)</script>' },
          { type: 'paragraph', text: '# pas un titre\n- pas une liste\n`pas de code` ![pas une image](/x.png)' },
        ],
      });
      const res = await request(app).get('/texte');
      expect(res.status).to.equal(200);
      expect(paragraphsOf(res.text)).to.deep.equal([
        'Un <em>mot</em>, un <em>autre</em>, du <strong>gras</strong> et <a href="/texte" title="Titre">un lien</a> vers ' +
          '<a href="https://exemple.org/a?b=1&amp;c=2">ailleurs</a>.<br>\nLigne deux',
        '&lt;b&gt;pas de HTML&lt;/b&gt; &amp; &lt;script&gt;alert(1)&lt;/script&gt;',
        '# pas un titre<br>\n- pas une liste<br>\n`pas de code` !<a href="/x.png">pas une image</a>',
      ]);
    });

    it('never makes a link of what link blocks refuse: javascript:, data:, mailto:, //host, /\\host', async () => {
      const refused = [
        'javascript:alert(1)',
        'JavaScript:alert(1)',
        'data:text/html,x',
        'mailto:a@exemple.fr',
        '//evil.example/',
        'vbscript:x',
        'ftp://exemple.fr',
      ];
      await storeRawPage(ctx, {
        title: 'Pièges',
        slug: 'pieges',
        blocks: [
          ...refused.map((href) => ({ type: 'paragraph', text: `[clic](${href})` })),
          { type: 'paragraph', text: '[oui](/pieges) [<x>](/\\evil.example)' },
        ],
      });
      const paragraphs = paragraphsOf((await request(app).get('/pieges')).text);
      for (const [index, href] of refused.entries()) expect(paragraphs[index], href).to.equal(`[clic](${href})`);
      expect(paragraphs.slice(0, refused.length).join('')).to.not.include('<a');
      // A backslash is percent-encoded: a path of this site, never another host.
      expect(paragraphs.at(-1)).to.equal('<a href="/pieges">oui</a> <a href="/%5Cevil.example">&lt;x&gt;</a>');
    });

    it('keeps the page JSON as stored: Markdown is only rendered on the site', async () => {
      await makePage(ctx, { title: 'Brut', blocks: [{ type: 'paragraph', text: '**gras**' }] });
      expect(withoutIds((await request(app).get('/app/api/pages/by-path?path=brut')).body.blocks)).to.deep.equal([{ type: 'paragraph', text: '**gras**' }]);
    });
  });

  describe('robots.txt', () => {
    it('closes the administration, sign-in, account and API paths (never a page that merely begins like them) and names the sitemap', async () => {
      const res = await request(app).get('/robots.txt');
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('text/plain; charset=utf-8');
      const closed = ['/admin', '/auth', '/account', '/app/api'].flatMap((prefix) => [`Disallow: ${prefix}$`, `Disallow: ${prefix}?`, `Disallow: ${prefix}/`]);
      expect(res.text).to.equal(['User-agent: *', ...closed, '', 'Sitemap: https://exemple.fr/sitemap.xml', ''].join('\n'));
      // The sitemap it names exists.
      expect((await request(app).get('/sitemap.xml')).status).to.equal(200);
      // No page can take the name: a slug has no dot.
      await createPage(ctx, { title: 'robots.txt' });
      expect((await request(app).get('/robots.txt')).text).to.equal(res.text);
    });
  });

  describe('type system and words', () => {
    it('sets one font family stack, once, and every size from the scale', () => {
      const css = readFileSync(path.join(publicDir, 'css', 'pages.css'), 'utf8');
      expect(css.match(/font-family\s*:/g)).to.have.length(1);
      expect(css).to.match(/html \{ font-family: var\(--font\);/);
      expect(css).to.not.match(/(?<![-\w])font:(?! inherit;)/);
      const sizes = [...css.matchAll(/font-size\s*:\s*([^;}]+)/g)].map((match) => match[1].trim());
      expect(sizes.length).to.be.greaterThan(5);
      for (const size of sizes) expect(size, size).to.match(/^(var\(--step-{1,2}\d\)|100%)$/);
    });

    it('writes the site’s own words in French typography: home list, empty home, page, 404', async () => {
      // An account exists: the empty home page is not the «not configured» one.
      await makeUser(ctx);
      const empty = visibleText((await request(app).get('/')).text);
      expect(empty).to.include('Aucune page publiée pour le moment.');
      assertFrenchTypography(empty, 'empty home');
      await makeChain(ctx, 2);
      for (const url of ['/', '/p1/p2', '/nulle-part']) assertFrenchTypography(visibleText((await request(app).get(url)).text), url);
    });

    it('links the site stylesheet from every page of the site', async () => {
      await makeChain(ctx, 1);
      for (const url of ['/', '/p1', '/nulle-part'])
        expect((await request(app).get(url)).text, url).to.include('<link rel="stylesheet" href="/assets/css/pages.css">');
      expect((await request(app).get('/assets/css/pages.css')).status).to.equal(200);
    });
  });
});
