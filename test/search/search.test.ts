// The public site search (GET /app/api/pages/search, GET /recherche): what it finds
// (accents and case ignored, the last word as a prefix, a typo corrected, a title match
// first), what it never shows (a draft's content, a never-published page, a private
// page, a public page under a private one), its excerpts (escaped, matched words in
// <mark>), its refusals (400 with a message) and the index the database keeps.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { saveDraft } from '../../models/pages/drafts.js';
import { createPage, updatePage } from '../../models/pages/pages.js';
import { SEARCH_CANDIDATES } from '../../models/pages/search.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makePage } from '../pages/helpers.js';

interface Hit {
  id: number;
  title: string;
  url: string;
  excerpt: string;
}

const paragraph = (text: string) => ({ type: 'paragraph', text });

describe('the public site search', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  after(() => closeTestApp(app));
  beforeEach(() => resetData(ctx));

  async function search(q: string, extra = ''): Promise<{ items: Hit[]; total: number; total_capped: boolean; limit: number; offset: number }> {
    const res = await request(app).get(`/app/api/pages/search?q=${encodeURIComponent(q)}${extra}`);
    expect(res.status, res.text).to.equal(200);
    return res.body;
  }
  const titles = async (q: string) => (await search(q)).items.map((item) => item.title);

  /** The index row the trigger keeps for a page. */
  async function indexRow(pageId: number): Promise<{ visible: boolean; document: string } | undefined> {
    const { rows } = await ctx.db.raw<{ rows: Array<{ visible: boolean; document: string }> }>(
      'SELECT visible, document::text AS document FROM app_page_search WHERE page_id = ?',
      [pageId],
    );
    return rows[0];
  }

  it('ignores accents and case, in the query and in the pages', async () => {
    const page = await makePage(ctx, { title: 'Les élèves', slug: 'eleves', blocks: [paragraph('Une ÉCOLE de céramique à Lyon.')] });
    expect(await titles('ELEVES')).to.deep.equal(['Les élèves']);
    expect(await titles('ceramique')).to.deep.equal(['Les élèves']);
    expect(await titles('École Céramique')).to.deep.equal(['Les élèves']);
    const row = await indexRow(page.id);
    expect(row?.visible).to.equal(true);
    expect(row?.document).to.include("'elev':2A").and.include("'ceram'");
  });

  it('takes the last word as a prefix', async () => {
    await makePage(ctx, { title: 'L’atelier de poterie', slug: 'atelier' });
    await makePage(ctx, { title: 'Jardin', slug: 'jardin', blocks: [paragraph('Un potager partagé.')] });
    expect(await titles('atel')).to.deep.equal(['L’atelier de poterie']);
    expect(await titles('poterie atel')).to.deep.equal(['L’atelier de poterie']);
    expect(await titles('potag')).to.deep.equal(['Jardin']);
  });

  it('corrects a typo from the site’s words when nothing matches as typed', async () => {
    await makePage(ctx, { title: 'Accueil', slug: 'accueil', blocks: [paragraph('Les ateliers du samedi pour les enfants.')] });
    await makePage(ctx, { title: 'Contact', slug: 'contact' });
    const found = await search('ateliier');
    expect(found.items.map((item) => item.title)).to.deep.equal(['Accueil']);
    expect(found.items[0].url).to.equal('/');
    expect(found.items[0].excerpt).to.include('<mark>ateliers</mark>');
    const words = await ctx.db('app_page_search_words').whereIn('word', ['ateliers', 'enfants', 'contact']).pluck('word');
    expect(words.sort()).to.deep.equal(['ateliers', 'contact', 'enfants']);
    expect(await titles('zzqqxx')).to.deep.equal([]);
  });

  it('ranks a title match before a text match, and pages through the total', async () => {
    await makePage(ctx, { title: 'Horaires', slug: 'horaires', blocks: [paragraph('La bibliothèque ouvre à 9 heures. Bibliothèque fermée le lundi.')] });
    await makePage(ctx, { title: 'La bibliothèque', slug: 'bibliotheque', blocks: [paragraph('Des livres.')] });
    await makePage(ctx, { title: 'Contact', slug: 'contact', blocks: [{ type: 'heading', text: 'Venir à la bibliothèque', level: 2 }] });
    expect(await titles('bibliotheque')).to.deep.equal(['La bibliothèque', 'Contact', 'Horaires']);
    const second = await search('bibliotheque', '&limit=1&offset=1');
    expect(second).to.deep.include({ total: 3, total_capped: false, limit: 1, offset: 1 });
    expect(second.items.map((item) => item.title)).to.deep.equal(['Contact']);
    const past = await search('bibliotheque', '&limit=5&offset=10');
    expect(past).to.deep.include({ total: 3, items: [] });
  });

  it('never shows a draft’s content, a never-published page, a private page or a page under a private one', async () => {
    const live = await makePage(ctx, { title: 'Programme', slug: 'programme', blocks: [paragraph('Concert public.')] });
    await saveDraft(ctx, live.id, { title: 'Programme secret', blocks: [paragraph('Concert confidentiel.')] });
    const never = await createPage(ctx, { title: 'Concert jamais publié', slug: 'jamais' }, null, undefined, { publish: false });
    const hidden = await makePage(ctx, { title: 'Concert privé', slug: 'prive', visibility: 'private' });
    const under = await makePage(ctx, { title: 'Concert sous une page privée', slug: 'dessous', parent_id: hidden.id });
    expect(await titles('concert')).to.deep.equal(['Programme']);
    expect(await titles('confidentiel')).to.deep.equal([]);
    expect(await titles('secret')).to.deep.equal([]);
    // Not even through the typo correction.
    expect(await titles('confidentiell')).to.deep.equal([]);
    for (const id of [never.id, hidden.id, under.id]) expect((await indexRow(id))?.visible, `page ${id}`).to.equal(false);

    // The parent made public: its sub-page is found at its address, and hidden again with it.
    await updatePage(ctx, hidden.id, { visibility: 'public' });
    const found = await search('dessous concert');
    expect(found.items.map((item) => item.url)).to.deep.equal(['/prive/dessous']);
    expect((await indexRow(under.id))?.visible).to.equal(true);
    await updatePage(ctx, hidden.id, { visibility: 'private' });
    expect(await titles('dessous')).to.deep.equal([]);
    expect((await indexRow(under.id))?.visible).to.equal(false);
  });

  it('learns the words of visible pages only, and those of a branch when it is made public', async () => {
    const known = (words: string[]) => ctx.db('app_page_search_words').whereIn('word', words).orderBy('word').pluck('word');
    const hidden = await makePage(ctx, { title: 'Coulisses', slug: 'coulisses', visibility: 'private', blocks: [paragraph('Le machiniste règle la herse.')] });
    await makePage(ctx, { title: 'Loges', slug: 'loges', parent_id: hidden.id, blocks: [paragraph('Le maquilleur attend.')] });
    await makePage(ctx, { title: 'Scène', slug: 'scene', blocks: [paragraph('Le rideau se lève.')] });
    expect(await known(['machiniste', 'maquilleur', 'rideau'])).to.deep.equal(['rideau']);
    expect(await titles('machinistte')).to.deep.equal([]);

    await updatePage(ctx, hidden.id, { visibility: 'public' });
    expect(await known(['machiniste', 'maquilleur', 'rideau'])).to.deep.equal(['machiniste', 'maquilleur', 'rideau']);
    expect(await titles('machinistte')).to.deep.equal(['Coulisses']);
    expect(await titles('maquilleurr')).to.deep.equal(['Loges']);
    // A private page's new words stay unknown.
    await updatePage(ctx, hidden.id, { visibility: 'private' });
    await updatePage(ctx, hidden.id, { blocks: [paragraph('Le régisseur veille.')] });
    expect(await known(['regisseur'])).to.deep.equal([]);
  });

  it(`ranks and counts at most ${SEARCH_CANDIDATES} matches, title matches first wherever they are`, async () => {
    // More text matches than the cap, written before the title matches (first in the table's order).
    await ctx.db.raw(
      `INSERT INTO app_pages (title, slug, blocks)
       SELECT 'Page ' || n, 'page-' || n, jsonb_build_array(jsonb_build_object('type', 'paragraph', 'text', 'Le lavoir du village, page ' || n || '.'))
       FROM generate_series(1, ?) AS n`,
      [SEARCH_CANDIDATES + 5],
    );
    await makePage(ctx, { title: 'Le lavoir', slug: 'lavoir' });
    await makePage(ctx, { title: 'Lavoir et fontaine', slug: 'lavoir-fontaine' });
    const found = await search('lavoir', '&limit=3');
    expect(found).to.deep.include({ total: SEARCH_CANDIDATES, total_capped: true });
    expect(
      found.items
        .slice(0, 2)
        .map((item) => item.title)
        .sort(),
    ).to.deep.equal(['Lavoir et fontaine', 'Le lavoir']);
    expect(found.items[2].title).to.match(/^Page \d+$/);
    expect((await search('lavoir', `&limit=10&offset=${SEARCH_CANDIDATES - 5}`)).items).to.have.length(5);
    const html = await request(app).get('/recherche?q=lavoir');
    expect(html.text).to.include(`Plus de 1\u202f000\u00a0pages pour «&nbsp;lavoir&nbsp;»`);
    // Below the cap, the total is exact.
    expect(await search('fontaine')).to.deep.include({ total: 1, total_capped: false });
  });

  it('escapes the excerpt and marks only the matched words', async () => {
    await makePage(ctx, {
      title: 'Piège',
      slug: 'piege',
      blocks: [paragraph('Le code <script>alert("x")</script> & <b>gras</b> : un piège < 3 pour le navigateur.')],
    });
    const [hit] = (await search('navigateur')).items;
    expect(hit.excerpt).to.include('<mark>navigateur</mark>');
    expect(hit.excerpt).to.not.match(/<(?!\/?mark>)/);
    expect(hit.excerpt).to.include('&amp;').and.include('&lt; 3');
    const html = await request(app).get('/recherche?q=navigateur');
    expect(html.status).to.equal(200);
    expect(html.text).to.include('<mark>navigateur</mark>').and.not.include('<script>alert');
  });

  it('makes the excerpt around the match even far into a long text', async () => {
    const filler = 'Des nouvelles du quartier et des voisins. '.repeat(150);
    await makePage(ctx, { title: 'Chronique', slug: 'chronique', blocks: [paragraph(`${filler}Le lavoir restauré rouvre en mai. ${filler}`)] });
    const [hit] = (await search('lavoir')).items;
    expect(hit.excerpt).to.include('<mark>lavoir</mark>');
    expect(hit.excerpt.length).to.be.below(600);
  });

  it('answers 400 with a message for an empty, one-character or over-long query', async () => {
    const cases: Array<[string, string]> = [
      ['', 'Saisissez un ou plusieurs mots à rechercher.'],
      ['   ', 'Saisissez un ou plusieurs mots à rechercher.'],
      ['a', 'La recherche doit contenir au moins 2 caractères.'],
      ['x'.repeat(201), 'La recherche ne doit pas dépasser 200 caractères.'],
    ];
    for (const [q, message] of cases) {
      const api = await request(app).get(`/app/api/pages/search?q=${encodeURIComponent(q)}`);
      expect(api.status, q).to.equal(400);
      expect(JSON.stringify(api.body), q).to.include(message);
      const page = await request(app).get(`/recherche?q=${encodeURIComponent(q)}`);
      expect(page.status, q).to.equal(400);
      expect(page.text, q).to.include(message).and.include('role="search"').and.include('name="q"');
      expect(page.headers['cache-control']).to.equal('no-store');
    }
    const missing = await request(app).get('/app/api/pages/search');
    expect(missing.status).to.equal(400);
    expect(JSON.stringify(missing.body)).to.include('Saisissez un ou plusieurs mots à rechercher.');
    for (const extra of ['&limit=0', '&limit=51', '&offset=-1', '&limit=abc', '&other=1']) {
      const res = await request(app).get(`/app/api/pages/search?q=atelier${extra}`);
      expect(res.status, extra).to.equal(400);
    }
    expect((await request(app).get('/recherche?q=atelier&page=0')).status).to.equal(400);
    // Exactly 200 characters is a search.
    expect((await request(app).get(`/app/api/pages/search?q=${'x'.repeat(200)}`)).status).to.equal(200);
    // The form alone, without a query.
    const form = await request(app).get('/recherche');
    expect(form.status).to.equal(200);
    expect(form.text).to.include('id="search-page-q"');
  });

  it('shows the results on /recherche, 10 a page, with the header’s search form', async () => {
    for (let n = 1; n <= 12; n++) await makePage(ctx, { title: `Salle ${n}`, slug: `salle-${n}`, blocks: [paragraph('Une salle de réunion.')] });
    const first = await request(app).get('/recherche?q=reunion');
    expect(first.status).to.equal(200);
    expect(first.text).to.include('12\u00a0pages pour «&nbsp;reunion&nbsp;»');
    expect(first.text.match(/<li>\s*<h2>/g)).to.have.length(10);
    expect(first.text).to.include('href="/recherche?q=reunion&amp;page=2"');
    expect(first.text).to.include('<form class="site-search" role="search"').and.include('<label for="site-search-q"');
    expect(first.text).to.include('<meta name="robots" content="noindex">');
    const second = await request(app).get('/recherche?q=reunion&page=2');
    expect(second.text.match(/<li>\s*<h2>/g)).to.have.length(2);
    expect(second.text).to.include('<ol class="search-results" start="11">');
    const none = await request(app).get('/recherche?q=introuvable');
    expect(none.text).to.include('Aucune page ne correspond à «&nbsp;introuvable&nbsp;».');
  });

  it('reserves the root slug «recherche»', async () => {
    const res = await request(app).get('/recherche?q=test');
    expect(res.status).to.equal(200);
    let refused: unknown;
    await makePage(ctx, { title: 'Recherche', slug: 'recherche' }).catch((error: unknown) => (refused = error));
    expect(String(refused)).to.include('réservé');
    expect(await ctx.db('app_pages').where({ slug: 'recherche' }).first()).to.equal(undefined);
  });
});
