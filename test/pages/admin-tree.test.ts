// The admin page tree on a site of 301 pages, 20 levels deep, with an app whose pages
// module shows 5 pages per level and 4 parent candidates: levels load one at a time and
// page through their children, paths are right at any depth, the edited page's path is
// expanded, and the parent picker searches (without JavaScript, and in JSON).
import { expect } from 'chai';
import { closeApp, createApp, type App } from '../../app.js';
import type { AppContext } from '../../lib/context.js';
import { createPage, getPage } from '../../models/pages/pages.js';
import { coreModule } from '../../routes/core-module.js';
import { createPagesModule } from '../../routes/pages/index.js';
import { contextOf, resetData, testConfig } from '../support/app.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { countStatements } from './helpers.js';
import { formFields, setField, submitEditor } from './editor-form.js';

const two = (n: number) => String(n).padStart(2, '0');

interface Site {
  roots: number[];
  /** chain[0] is «Racine 07», chain[k] «Niveau k+1» (depth k+1), chain[19] the depth-20 leaf. */
  chain: number[];
}

/** Straight inserts, level by level (301 rows in a few statements). */
async function seed(ctx: AppContext): Promise<Site> {
  const insert = async (parent: number | null, titles: string[]) => {
    const rows = titles.map((title) => ({ title, slug: title.toLowerCase().replace(/\s+/g, '-'), parent_id: parent }));
    return (await ctx.db('app_pages').insert(rows).returning('id')).map((row) => row.id);
  };
  const roots = await insert(
    null,
    Array.from({ length: 12 }, (_, i) => `Racine ${two(i + 1)}`),
  );
  const chain = [roots[6]];
  for (let depth = 2; depth <= 20; depth++) chain.push((await insert(chain[chain.length - 1], [`Niveau ${two(depth)}`]))[0]);
  // «Niveau 03» sits at rank 15 of 31 among its siblings, «Niveau 11» last of 41.
  await insert(chain[1], [...Array.from({ length: 15 }, (_, i) => `Autre ${two(i)}`), ...Array.from({ length: 15 }, (_, i) => `Zeta ${two(i)}`)]);
  await insert(
    chain[9],
    Array.from({ length: 40 }, (_, i) => `Feuille ${two(i)}`),
  );
  await insert(
    roots[2],
    Array.from({ length: 200 }, (_, i) => `Page ${String(i).padStart(3, '0')}`),
  );
  expect(Number((await ctx.db('app_pages').count({ n: '*' }).first())!.n)).to.equal(301);
  return { roots, chain };
}

const pathTo = (depth: number) => ['/racine-07', ...Array.from({ length: depth - 1 }, (_, i) => `/niveau-${two(i + 2)}`)].join('');
const rowsOf = (html: string) => html.match(/class="tree-row"/g)?.length ?? 0;
const radiosOf = (html: string) =>
  [...html.matchAll(/<input type="radio" name="parent_id" value="(\d*)"( checked)?>/g)].map((match) => match[1] + (match[2] ? '*' : ''));

describe('admin page tree: one level at a time, paths at any depth, parent search', () => {
  let app: App;
  let ctx: AppContext;
  let site: Site;
  before(async () => {
    app = createApp(testConfig(), [coreModule, createPagesModule({ tree: { pageSize: 5, pickerSize: 4 } })]);
    ctx = contextOf(app);
    await resetData(ctx);
    site = await seed(ctx);
  });
  after(async () => {
    await resetData(ctx);
    await closeApp(app);
  });

  const editor = () => AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });

  it('shows the root pages a page at a time, each with a link opening it', async () => {
    const client = await editor();
    const first = await client.get('/admin/pages');
    expect(first.status).to.equal(200);
    expect(rowsOf(first.text)).to.equal(5);
    const text = textOf(first.text);
    expect(text).to.include('Racine 01').and.include('Racine 05').and.not.include('Racine 06');
    expect(text).to.include('Pages 1 à 5 sur 12').and.include('Ouvrir Racine 03 (200 sous-pages)');
    expect(first.text).to.include('href="/admin/pages?page=2"').and.include(`href="/admin/pages?open=${site.roots[2]}#page-${site.roots[2]}"`);
    const last = await client.get('/admin/pages?page=3');
    expect(textOf(last.text)).to.include('Racine 11').and.include('Racine 12').and.include('Pages 11 à 12 sur 12');
    expect(last.text).to.include('href="/admin/pages?page=2"').and.not.include('Suivantes');
  });

  it('opens a depth-20 page: every level down to it expanded at the page of siblings holding it, paths right, in two statements', async () => {
    const client = await editor();
    const leaf = site.chain[19];
    const { result: opened, sql } = await countStatements(ctx, () => client.get(`/admin/pages?open=${leaf}`));
    expect(opened.status).to.equal(200);
    expect(sql.filter((statement) => statement.includes('app_pages'))).to.have.length(2);
    // 5 roots, then one page per level; never more than 5 rows a level.
    expect(rowsOf(opened.text)).to.be.at.most(5 * 21);
    const text = textOf(opened.text);
    expect(text).to.include('Racine 06').and.include('Racine 10').and.not.include('Racine 05').and.not.include('Racine 11');
    expect(text).to.include('Sous-pages 16 à 20 sur 31').and.include('Zeta 03').and.not.include('Autre 14').and.not.include('Zeta 04');
    expect(text).to.include('Sous-pages 41 à 41 sur 41').and.not.include('Feuille');
    expect(opened.text).to.include(`href="/admin/pages?open=${site.chain[1]}&amp;page=3"`).and.include(`href="/admin/pages?open=${site.chain[1]}&amp;page=5"`);
    for (let depth = 1; depth <= 20; depth++) expect(text, `depth ${depth}`).to.include(pathTo(depth) + ' ');
    expect(text).to.include('Replier Niveau 19');
    // Folding «Niveau 03» goes back to «Niveau 02» opened at the page of its children holding it.
    expect(opened.text).to.include(`href="/admin/pages?open=${site.chain[1]}&amp;page=4#page-${site.chain[2]}"`);
    expect(opened.text).to.match(new RegExp(`<li id="page-${leaf}">\\s*<div class="tree-row" aria-current="true">`));
    // A level pages on by itself, deeper levels folded.
    const second = await client.get(`/admin/pages?open=${site.chain[1]}&page=2`);
    expect(textOf(second.text)).to.include('Autre 05').and.include('Autre 09').and.include('Sous-pages 6 à 10 sur 31').and.not.include('Niveau 03');
  });

  it('finds pages by title, slug or number, each with its full path, a page of them at a time', async () => {
    const client = await editor();
    const found = await client.get('/admin/pages?q=niveau-20');
    expect(textOf(found.text)).to.include('Niveau 20').and.include(pathTo(20));
    const many = await client.get('/admin/pages?q=Niveau');
    expect(rowsOf(many.text)).to.equal(5);
    expect(many.text).to.include('href="/admin/pages?q=Niveau&amp;page=2"');
    expect(textOf((await client.get(`/admin/pages?q=${site.chain[14]}`)).text)).to.include(pathTo(15));
    // Any case, accents as typed or left out (through the slug); LIKE's wildcards are plain characters.
    await createPage(ctx, { title: 'Été à Paris', parent_id: site.roots[0] });
    for (const q of ['ÉTÉ', 'ete-a', 'Paris'])
      expect(textOf((await client.get(`/admin/pages?q=${encodeURIComponent(q)}`)).text), q).to.include('/racine-01/ete-a-paris');
    expect(textOf((await client.get('/admin/pages?q=%25')).text)).to.include('Aucune page ne correspond');
    expect(textOf((await client.get('/admin/pages?q=_')).text)).to.include('Aucune page ne correspond');
  });

  it('expands the edited page’s path: trail of its ancestors, a way back to it in the tree, its parent chosen with its path', async () => {
    const client = await editor();
    const leaf = site.chain[19];
    const page = await client.get(`/admin/pages/${leaf}`);
    expect(page.status).to.equal(200);
    const trail = /<nav aria-label="Emplacement dans l’arborescence" class="trail">([\s\S]*?)<\/nav>/.exec(page.text)![1];
    expect(trail).to.include(`href="/admin/pages?open=${leaf}#page-${leaf}"`);
    expect(textOf(trail).trim()).to.equal(['← Pages', 'Racine 07', ...Array.from({ length: 19 }, (_, i) => `Niveau ${two(i + 2)}`)].join(' › '));
    expect(page.text).to.include(`<code>${ctx.config.baseUrl}${pathTo(20)}</code>`);
    expect(radiosOf(page.text)).to.deep.equal(['', `${site.chain[18]}*`]);
    expect(textOf(page.text)).to.include(pathTo(19));
  });

  it('searches parent candidates without JavaScript, leaving out the page and what lies under it', async () => {
    const client = await editor();
    const page = site.chain[4]; // «Niveau 05», under «Niveau 04»
    const search = await client.get(`/admin/pages/${page}?parent_q=niveau`);
    // In the editor the search is a button of the document (the draft is saved first, nothing typed is lost).
    expect(search.text).to.include('name="parent_q" type="search" value="niveau"');
    expect(search.text).to.include('<button type="submit" name="action" value="parent-search"');
    expect(radiosOf(search.text)).to.deep.equal(['', `${site.chain[3]}*`, String(site.chain[1]), String(site.chain[2])]);
    expect(textOf(search.text)).to.include(pathTo(3));
    // The same search in JSON.
    const json = await client.get(`/admin/pages/parent-candidates?q=niveau&exclude=${page}`);
    expect(json.status).to.equal(200);
    expect(json.body).to.deep.equal({
      items: [2, 3, 4].map((depth) => ({ id: site.chain[depth - 1], title: `Niveau ${two(depth)}`, path: pathTo(depth) })),
      more: false,
    });
    expect((await (await AdminClient.as(app, { permissions: ['admin.access', 'pages.view'] })).get('/admin/pages/parent-candidates?q=a')).status).to.equal(403);
    // More matches than shown: the form says to narrow the search, and keeps the preselected parent.
    const fresh = await client.get(`/admin/pages/new?parent=${site.roots[2]}&parent_q=page 1`);
    expect(radiosOf(fresh.text)).to.have.length(6);
    expect(radiosOf(fresh.text)[1]).to.equal(`${site.roots[2]}*`);
    expect(textOf(fresh.text)).to.include('D’autres pages correspondent');
    expect(fresh.text).to.include(`<input type="hidden" name="parent" value="${site.roots[2]}">`);
    // Choosing a candidate moves the page and its subtree.
    const moved = await submitEditor(client, page, setField(formFields(search.text), 'parent_id', String(site.chain[1])), 'publish');
    expect(moved.status).to.equal(303);
    expect((await getPage(ctx, page)).parent_id).to.equal(site.chain[1]);
    const leaf = await client.get(`/admin/pages/${site.chain[19]}`);
    expect(leaf.text).to.include(`<code>${ctx.config.baseUrl}/racine-07/niveau-02/niveau-05/niveau-06`);
    // Niveau 06 to 20 and the 40 pages under Niveau 10.
    expect(textOf((await client.get(`/admin/pages/${page}/delete`)).text)).to.include('Cette page a 55 sous-pages');
  });
});
