import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { insertMedia } from '../../models/pages/media.js';
import { createPage, updatePage } from '../../models/pages/pages.js';
import { getPublishedPageBySegments, listPublicChildPages } from '../../models/pages/public.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { countStatements, makeChain, makePage, storeRawPage, userWith, withoutIds } from './helpers.js';

describe('public pages: server functions, public routes, site', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp({ APP_NAME: 'Mon site', BASE_URL: 'https://exemple.fr' });
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  describe('getPublishedPageBySegments', () => {
    it('descends the chain of slugs and returns the row with blocks and no url', async () => {
      const ids = await makeChain(ctx, 3, 'p', { blocks: [{ type: 'paragraph', text: 'Fond' }] });
      const page = await getPublishedPageBySegments(ctx, ['p1', 'p2', 'p3']);
      expect(page).to.include({ id: ids[2], title: 'p3', slug: 'p3', parent_id: ids[1] });
      expect(withoutIds(page!.blocks)).to.deep.equal([{ type: 'paragraph', text: 'Fond' }]);
      expect(page).to.not.have.property('url');
    });

    it('returns null when a segment does not match, is malformed, or the chain is incomplete', async () => {
      await makeChain(ctx, 3);
      for (const segments of [['p1', 'x', 'p3'], ['p2', 'p3'], ['p1', 'p2', 'p3', 'p4'], ['P1'], [], ['p1', ''], ['p1/p2']]) {
        expect(await getPublishedPageBySegments(ctx, segments), segments.join('/')).to.equal(null);
      }
    });

    it('enriches image blocks with the media url, alt text and caption', async () => {
      const media = await insertMedia(
        ctx,
        {
          filename: 'media/0123456789abcdef0123456789abcdef.png',
          original_name: 'a.png',
          mime_type: 'image/png',
          size: 10,
          alt: 'Un chat',
          caption: 'Le chat',
        },
        null,
      );
      // The second image's media is gone (the model refuses to write such a block today).
      await storeRawPage(ctx, {
        title: 'Galerie',
        slug: 'galerie',
        blocks: [
          { type: 'image', media_id: media.id },
          { type: 'image', media_id: 999 },
        ],
      });
      const page = await getPublishedPageBySegments(ctx, ['galerie']);
      expect(withoutIds(page!.blocks[0])).to.deep.equal({
        type: 'image',
        media_id: media.id,
        url: '/uploads/media/0123456789abcdef0123456789abcdef.png',
        alt: 'Un chat',
        caption: 'Le chat',
        // Its sources once renditions exist (none here: the row has no size yet).
        picture: { src: '/uploads/media/0123456789abcdef0123456789abcdef.png', width: null, height: null, sources: [], srcset: null, social: null },
      });
      expect(withoutIds(page!.blocks[1])).to.deep.equal({ type: 'image', media_id: 999 });
    });

    it('issues the same number of statements at depth 1 and depth 20: one, plus one for media', async () => {
      const media = await insertMedia(
        ctx,
        { filename: 'media/0123456789abcdef0123456789abcdef.png', original_name: 'a.png', mime_type: 'image/png', size: 10 },
        null,
      );
      const blocks = [{ type: 'image', media_id: media.id }];
      await makeChain(ctx, 1, 'a', { blocks });
      await makeChain(ctx, 20, 'b', { blocks });
      const shallow = await countStatements(ctx, () => getPublishedPageBySegments(ctx, ['a1']));
      const deep = await countStatements(ctx, () =>
        getPublishedPageBySegments(
          ctx,
          Array.from({ length: 20 }, (_, index) => `b${index + 1}`),
        ),
      );
      expect(shallow.result).to.not.equal(null);
      expect(deep.result).to.not.equal(null);
      expect(shallow.count).to.equal(2);
      expect(deep.count).to.equal(shallow.count);
      await makeChain(ctx, 20, 'c');
      const withoutMedia = await countStatements(ctx, () =>
        getPublishedPageBySegments(
          ctx,
          Array.from({ length: 20 }, (_, index) => `c${index + 1}`),
        ),
      );
      expect(withoutMedia.count).to.equal(1);
    });
  });

  describe('listPublicChildPages', () => {
    it('lists public children ordered by title with their url and without blocks; 200 / 0 by default', async () => {
      const [p1, p2] = await makeChain(ctx, 2);
      for (const title of ['Zèbre', 'Abeille', 'Mouche']) await makePage(ctx, { title, parent_id: p2, blocks: [{ type: 'paragraph', text: 'x' }] });
      const items = await listPublicChildPages(ctx, p2);
      expect(items.map((item) => [item.title, item.url])).to.deep.equal([
        ['Abeille', '/p1/p2/abeille'],
        ['Mouche', '/p1/p2/mouche'],
        ['Zèbre', '/p1/p2/zebre'],
      ]);
      expect(items[0]).to.not.have.property('blocks');
      expect((await listPublicChildPages(ctx, null)).map((item) => item.url)).to.deep.equal(['/p1']);
      expect((await listPublicChildPages(ctx, p2, { limit: 1, offset: 1 })).map((item) => item.title)).to.deep.equal(['Mouche']);
      expect(await listPublicChildPages(ctx, p1)).to.have.length(1);
      const many = await makePage(ctx, { title: 'Beaucoup' });
      for (let index = 0; index < 205; index++) await makePage(ctx, { title: `E${index}`, slug: `e${index}`, parent_id: many.id });
      expect(await listPublicChildPages(ctx, many.id)).to.have.length(200);
    });

    it('issues at most 2 statements whatever the number of children or the depth', async () => {
      const ids = await makeChain(ctx, 15);
      const deepest = ids[ids.length - 1];
      const few = await countStatements(ctx, () => listPublicChildPages(ctx, deepest));
      for (let index = 0; index < 50; index++) await makePage(ctx, { title: `Enfant ${index}`, parent_id: deepest });
      const many = await countStatements(ctx, () => listPublicChildPages(ctx, deepest));
      expect(many.result).to.have.length(50);
      expect(few.count).to.be.at.most(2);
      expect(many.count).to.equal(few.count);
      expect((await countStatements(ctx, () => listPublicChildPages(ctx, null))).count).to.equal(1);
    });
  });

  describe('public JSON routes', () => {
    it('GET /app/api/pages/by-path returns the full row with blocks and no media data', async () => {
      const media = await insertMedia(
        ctx,
        { filename: 'media/0123456789abcdef0123456789abcdef.png', original_name: 'a.png', mime_type: 'image/png', size: 10, alt: 'Alt' },
        null,
      );
      await makeChain(ctx, 2, 'p', { blocks: [{ type: 'image', media_id: media.id }], seo: { title: 'S' } });
      const res = await request(app).get('/app/api/pages/by-path?path=p1/p2');
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ title: 'p2', slug: 'p2' });
      expect(withoutIds(res.body.blocks)).to.deep.equal([{ type: 'image', media_id: media.id }]);
      expect(res.body.seo).to.deep.equal({ title: 'S' });
      expect(res.body).to.not.have.property('url');
      expect((await request(app).get('/app/api/pages/by-path?path=/p1/p2/')).status).to.equal(200);
    });

    it('GET /app/api/pages/by-path answers 404 for an unknown path, 400 for a missing or malformed one', async () => {
      await makeChain(ctx, 2);
      const missing = await request(app).get('/app/api/pages/by-path?path=p1/nope');
      expect(missing.status).to.equal(404);
      expect(missing.body.code).to.equal('not_found');
      expect((await request(app).get('/app/api/pages/by-path?path=P1')).status).to.equal(404);
      expect((await request(app).get('/app/api/pages/by-path')).status).to.equal(400);
      expect((await request(app).get('/app/api/pages/by-path?path=p1//p2')).status).to.equal(400);
    });

    it('GET /app/api/pages lists root pages by default, or the children of an id, a slug path or root, without blocks nor seo', async () => {
      const [p1, p2] = await makeChain(ctx, 2);
      await makePage(ctx, { title: 'Deuxième racine', seo: { description: 'd' } });
      const roots = await request(app).get('/app/api/pages');
      expect(roots.status).to.equal(200);
      expect(roots.body).to.include({ total: 2, limit: 200, offset: 0 });
      expect(roots.body.items.map((item: { url: string }) => item.url)).to.deep.equal(['/deuxieme-racine', '/p1']);
      expect(roots.body.items[0]).to.not.have.any.keys('blocks', 'seo');
      expect((await request(app).get('/app/api/pages?parent=root')).body.total).to.equal(2);
      const byId = await request(app).get(`/app/api/pages?parent=${p1}`);
      expect(byId.body.items).to.have.length(1);
      expect(byId.body.items[0]).to.include({ id: p2, url: '/p1/p2' });
      const byPath = await request(app).get('/app/api/pages?parent=p1');
      expect(byPath.body.items[0]).to.include({ id: p2, url: '/p1/p2' });
      expect((await request(app).get(`/app/api/pages?parent=${p2}`)).body.items).to.deep.equal([]);
    });

    it('GET /app/api/pages answers 404 for an unknown parent and 400 for a malformed one', async () => {
      await makeChain(ctx, 1);
      expect((await request(app).get('/app/api/pages?parent=9999')).status).to.equal(404);
      expect((await request(app).get('/app/api/pages?parent=p1/nope')).status).to.equal(404);
      expect((await request(app).get('/app/api/pages?parent=Pas%20bon')).status).to.equal(400);
      expect((await request(app).get('/app/api/pages?parent=p1&limit=201')).status).to.equal(400);
    });
  });

  describe('visibility: a private page never appears anywhere public', () => {
    let ids: { root: number; secret: number; child: number; publicLeaf: number };
    beforeEach(async () => {
      const root = await createPage(ctx, { title: 'Rubrique', slug: 'rubrique', template: 'section' });
      const secret = await createPage(ctx, { title: 'Secret', slug: 'secret', parent_id: root.id, visibility: 'private' });
      // A public page below a private one: the private page hides its branch.
      const child = await createPage(ctx, { title: 'Sous secret', slug: 'sous-secret', parent_id: secret.id });
      const publicLeaf = await createPage(ctx, { title: 'Visible', slug: 'visible', parent_id: root.id });
      ids = { root: root.id, secret: secret.id, child: child.id, publicLeaf: publicLeaf.id };
    });

    const surfaces: Array<[string, (path: string) => Promise<string | null>]> = [
      ['getPublishedPageBySegments', async (path) => JSON.stringify(await getPublishedPageBySegments(ctx, path.split('/')))],
      [
        'listPublicChildPages of the parent',
        async () => JSON.stringify([...(await listPublicChildPages(ctx, ids.root)), ...(await listPublicChildPages(ctx, ids.secret))]),
      ],
      ['GET /app/api/pages/by-path', async (path) => JSON.stringify((await request(app).get(`/app/api/pages/by-path?path=${path}`)).body)],
      [
        'GET /app/api/pages',
        async () =>
          JSON.stringify((await request(app).get('/app/api/pages?parent=rubrique')).body) +
          JSON.stringify((await request(app).get(`/app/api/pages?parent=${ids.secret}`)).body),
      ],
      ['GET /sitemap.xml and its file', async () => (await request(app).get('/sitemap.xml')).text + (await request(app).get('/sitemap-1.xml')).text],
      ['the public site', async (path) => (await request(app).get(`/${path}`)).text + (await request(app).get('/rubrique')).text],
    ];

    for (const [surface, read] of surfaces) {
      it(`${surface} never shows a private page nor the branch below it`, async () => {
        for (const path of ['rubrique/secret', 'rubrique/secret/sous-secret']) {
          const seen = (await read(path)) ?? '';
          expect(seen, path).to.not.match(/Secret|sous-secret|Sous secret/);
        }
        // And the public sibling is there where the surface lists or resolves it.
        const visible = (await read('rubrique/visible')) ?? '';
        expect(visible).to.match(/visible/i);
      });
    }

    it('answers 404 on the private page itself, through the API and the site', async () => {
      expect((await request(app).get('/app/api/pages/by-path?path=rubrique/secret')).status).to.equal(404);
      expect((await request(app).get(`/app/api/pages?parent=${ids.secret}`)).status).to.equal(404);
      expect((await request(app).get('/rubrique/secret')).status).to.equal(404);
      expect((await request(app).get('/rubrique/secret/sous-secret')).status).to.equal(404);
      await updatePage(ctx, ids.secret, { visibility: 'public' });
      expect((await request(app).get('/rubrique/secret/sous-secret')).status).to.equal(200);
    });
  });

  describe('the public site', () => {
    it('renders a page through its template with title, description, canonical URL and Open Graph tags', async () => {
      const media = await insertMedia(
        ctx,
        {
          filename: 'media/0123456789abcdef0123456789abcdef.png',
          original_name: 'a.png',
          mime_type: 'image/png',
          size: 10,
          alt: 'Un phare',
          caption: 'Le phare',
        },
        null,
      );
      await makeChain(ctx, 2, 'p', {
        seo: { title: 'Titre SEO', description: 'Une description' },
        blocks: [
          { type: 'heading', text: 'Intertitre', level: 3 },
          { type: 'paragraph', text: 'Texte' },
          { type: 'image', media_id: media.id },
          { type: 'list', items: ['un', 'deux'], ordered: true },
          { type: 'quote', text: 'Citation', cite: 'Auteur' },
          { type: 'link', href: '/p1', label: 'Retour' },
        ],
      });
      const res = await request(app).get('/p1/p2');
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.match(/text\/html/);
      expect(res.headers).to.not.have.property('set-cookie');
      const html = res.text;
      expect(html).to.include('<title>Titre SEO — Mon site</title>');
      expect(html).to.include('<meta name="description" content="Une description">');
      expect(html).to.include('<link rel="canonical" href="https://exemple.fr/p1/p2">');
      expect(html).to.include('<meta property="og:title" content="Titre SEO">');
      expect(html).to.include('<meta property="og:description" content="Une description">');
      expect(html).to.include('<meta property="og:url" content="https://exemple.fr/p1/p2">');
      expect(html).to.include('<meta property="og:image" content="https://exemple.fr/uploads/media/0123456789abcdef0123456789abcdef.png">');
      expect(html).to.include('<meta property="og:image:alt" content="Un phare">');
      expect(html).to.include('<meta name="twitter:card" content="summary_large_image">');
      expect(html).to.include('<h3 class="block block-heading">Intertitre</h3>');
      // The page's first picture: fetched at once (its size unknown here: no renditions, no width and height).
      expect(html).to.include('<img src="/uploads/media/0123456789abcdef0123456789abcdef.png" alt="Un phare" fetchpriority="high" decoding="async">');
      expect(html).to.include('<figcaption>Le phare</figcaption>');
      expect(html).to.match(/<ol class="block block-list">\s*<li>un<\/li><li>deux<\/li>/);
      expect(html).to.include('<a href="/p1">Retour</a>');
      expect(html).to.include('<a href="/p1">p1</a>');
    });

    it('escapes every text of a page and refuses script links', async () => {
      // Stored as is: the model refuses the script link today, the renderer still must.
      await storeRawPage(ctx, {
        title: '<script>alert(1)</script>',
        slug: 'piege',
        seo: { description: '"><script>x</script>', image: 'javascript:alert(2)' },
        blocks: [
          { type: 'paragraph', text: '<img src=x onerror=alert(1)>' },
          { type: 'link', href: 'javascript:alert(1)', label: 'clic' },
        ],
      });
      const html = (await request(app).get('/piege')).text;
      expect(html).to.not.include('<script>');
      expect(html).to.not.include('<img src=x');
      expect(html).to.not.include('javascript:');
      expect(html).to.include('&lt;script&gt;alert(1)&lt;/script&gt;');
    });

    it('skips unknown block types and logs each type once', async () => {
      const warnings: unknown[] = [];
      const { logger } = ctx;
      const original = logger.warn.bind(logger);
      (logger as { warn: unknown }).warn = (...args: unknown[]) => {
        warnings.push(args[0]);
      };
      try {
        await makePage(ctx, {
          title: 'Mystère',
          blocks: [
            { type: 'hologramme-test', text: 'invisible' },
            { type: 'paragraph', text: 'Visible' },
          ],
        });
        const first = await request(app).get('/mystere');
        await request(app).get('/mystere');
        expect(first.status).to.equal(200);
        expect(first.text).to.include('Visible');
        expect(first.text).to.not.include('invisible');
      } finally {
        (logger as { warn: unknown }).warn = original;
      }
      expect(warnings.filter((entry) => (entry as { type?: string }).type === 'hologramme-test')).to.have.length(1);
    });

    it('never renders a url stored on an image block: the image comes from its media alone', async () => {
      const media = await insertMedia(
        ctx,
        { filename: 'media/' + 'c'.repeat(32) + '.png', original_name: 'c.png', mime_type: 'image/png', size: 10, alt: 'Vrai' },
        null,
      );
      await storeRawPage(ctx, {
        title: 'Images',
        slug: 'images',
        blocks: [
          { type: 'image', media_id: media.id, url: 'javascript:alert(1)', caption: 'Faux' },
          { type: 'image', media_id: 4242, url: 'javascript:alert(2)' },
          { type: 'image', url: 'https://ailleurs.example/pixel.png' },
        ],
      });
      const res = await request(app).get('/images');
      expect(res.status).to.equal(200);
      expect(res.text).to.not.include('javascript:');
      expect(res.text).to.not.include('ailleurs.example');
      expect(res.text).to.not.include('Faux');
      expect(res.text.match(/<img /g)).to.have.length(1);
      expect(res.text).to.include(`<img src="${media.url}" alt="Vrai" fetchpriority="high" decoding="async">`);
      // The block's own text alternative (issue 23) wins over the library's; a decorative image has none.
      await storeRawPage(ctx, {
        title: 'Textes',
        slug: 'textes',
        blocks: [
          { type: 'image', media_id: media.id, alt: 'Le texte du bloc' },
          { type: 'image', media_id: media.id, alt: 'Ignoré', decorative: true },
        ],
      });
      const texts = await request(app).get('/textes');
      expect(texts.text)
        .to.include(`<img src="${media.url}" alt="Le texte du bloc" fetchpriority="high" decoding="async">`)
        .and.include(`<img src="${media.url}" alt="" loading="lazy" decoding="async">`);
      const page = await getPublishedPageBySegments(ctx, ['images']);
      expect(withoutIds(page!.blocks[1])).to.deep.equal({ type: 'image', media_id: 4242 });
      // The public JSON route carries no media data at all (SPEC B3), stored or not.
      const json = await request(app).get('/app/api/pages/by-path?path=images');
      expect(withoutIds(json.body.blocks)).to.deep.equal([{ type: 'image', media_id: media.id }, { type: 'image', media_id: 4242 }, { type: 'image' }]);
    });

    it('renders only the declared fields of a known block, and skips one that breaks its rules', async () => {
      await storeRawPage(ctx, {
        title: 'Anciens blocs',
        slug: 'anciens',
        blocks: [
          { type: 'heading', text: 'Trop profond', level: 9 },
          { type: 'list', items: 'pas une liste' },
          { type: 'paragraph', text: 'Gardé', class: 'x" onmouseover="alert(1)' },
          { type: 'link', href: '//evil.example/', label: 'Ailleurs' },
        ],
      });
      const res = await request(app).get('/anciens');
      expect(res.status).to.equal(200);
      expect(res.text).to.include('<p class="block block-paragraph">Gardé</p>');
      expect(res.text).to.not.include('Trop profond');
      expect(res.text).to.not.include('pas une liste');
      expect(res.text).to.not.include('evil.example');
      expect(res.text).to.not.include('onmouseover');
    });

    it('lists the sub-pages with the section template', async () => {
      const section = await createPage(ctx, { title: 'Actualités', template: 'section' });
      await createPage(ctx, { title: 'Brève', parent_id: section.id, seo: { description: 'Résumé' } });
      await createPage(ctx, { title: 'Cachée', parent_id: section.id, visibility: 'private' });
      const html = (await request(app).get('/actualites')).text;
      expect(html).to.include('<a href="/actualites/breve">Brève</a>');
      expect(html).to.include('Résumé');
      expect(html).to.not.include('Cachée');
    });

    it('answers the 404 page for an unknown path, and redirects a trailing slash to the canonical URL', async () => {
      await makeChain(ctx, 1);
      const missing = await request(app).get('/nulle/part');
      expect(missing.status).to.equal(404);
      expect(missing.text).to.include('Page introuvable');
      expect((await request(app).get('/Avec.Point')).status).to.equal(404);
      const slash = await request(app).get('/p1/?a=1');
      expect(slash.status).to.equal(301);
      expect(slash.headers.location).to.equal('/p1?a=1');
      expect((await request(app).get('//evil.example/')).status).to.equal(404);
    });

    it('shows the root page «accueil» at /, with / as its canonical URL, else the list of root pages', async () => {
      await makePage(ctx, { title: 'À propos' });
      const list = await request(app).get('/');
      expect(list.status).to.equal(200);
      expect(list.text).to.include('<a href="/a-propos">À propos</a>');
      await makePage(ctx, { title: 'Accueil', blocks: [{ type: 'paragraph', text: 'Bienvenue' }] });
      const home = await request(app).get('/');
      expect(home.text).to.include('Bienvenue');
      expect(home.text).to.include('<link rel="canonical" href="https://exemple.fr/">');
      expect((await request(app).get('/accueil')).text).to.include('<link rel="canonical" href="https://exemple.fr/">');
    });

    it('lists every public page in the sitemap with absolute URLs (/sitemap.xml is the index of its files)', async () => {
      await makeChain(ctx, 3);
      await makePage(ctx, { title: 'Accueil' });
      const index = await request(app).get('/sitemap.xml');
      expect(index.status).to.equal(200);
      expect(index.headers['content-type']).to.match(/application\/xml/);
      expect([...index.text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1])).to.deep.equal(['https://exemple.fr/sitemap-1.xml']);
      const res = await request(app).get('/sitemap-1.xml');
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.match(/application\/xml/);
      const locs = [...res.text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]);
      // In id order; the page «accueil» is `/`.
      expect(locs).to.deep.equal(['https://exemple.fr/p1', 'https://exemple.fr/p1/p2', 'https://exemple.fr/p1/p2/p3', 'https://exemple.fr/']);
    });

    it('never reaches the HTTP routes from in-process code and opens no session on public pages', async () => {
      await makeChain(ctx, 1);
      const statements = await countStatements(ctx, () =>
        request(app)
          .get('/p1')
          .then((res) => res),
      );
      expect(statements.result.status).to.equal(200);
      expect(statements.sql.some((sql) => /app_auth_sessions/.test(sql))).to.equal(false);
      expect(await ctx.db('app_auth_sessions').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    });

    it('reads no session for the public JSON routes, even when a session cookie is sent', async () => {
      await makeChain(ctx, 2);
      const user = await userWith(ctx, ['admin.access']);
      for (const path of ['/app/api/pages', '/app/api/pages/by-path?path=p1/p2', '/p1/p2', '/sitemap.xml', '/sitemap-1.xml', '/']) {
        const statements = await countStatements(ctx, () =>
          request(app)
            .get(path)
            .set('Cookie', user.cookie)
            .then((res) => res),
        );
        expect(statements.result.status, path).to.equal(200);
        expect(
          statements.sql.filter((sql) => /app_auth_/.test(sql)),
          path,
        ).to.deep.equal([]);
        expect(statements.result.headers, path).to.not.have.property('set-cookie');
      }
    });

    it('answers GET and HEAD only: any other method outside the reserved paths is the application’s 404', async () => {
      await makeChain(ctx, 1);
      const head = await request(app).head('/p1');
      expect(head.status).to.equal(200);
      expect(head.headers['content-type']).to.match(/text\/html/);
      for (const method of ['post', 'put', 'patch', 'delete'] as const) {
        for (const path of ['/p1', '/', '/sitemap.xml', '/sitemap-1.xml', '/nulle/part']) {
          const res = await request(app)[method](path).send({ title: 'x' });
          expect(res.status, `${method} ${path}`).to.equal(404);
        }
      }
      expect((await ctx.db('app_pages').first())!.title).to.equal('p1');
    });
  });
});
