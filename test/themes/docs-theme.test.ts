// The built-in documentation theme (themes/docs), its views rendered by Nunjucks in front
// of the site's, as the theme engine places them, with the pages module's data filters
// (listPublicChildPages, getPublishedPageBySegments, markdown) standing on a tree held in
// memory: the section's navigation down to the page, previous/next among its siblings,
// the guide template, the callout block, and its theme.json as the engine reads it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import nunjucks from 'nunjucks';
import { projectRoot, viewsDir } from '../../lib/paths.js';
import { moduleViewsDirectory } from '../../lib/views.js';

const THEME_DIR = path.join(projectRoot, 'themes', 'docs');

interface Node {
  id: number;
  parent_id: number | null;
  title: string;
  slug: string;
}

// guides ─ bien-demarrer ─ preparer-la-terre ─ choisir-sa-terre, le-petrissage, conserver-la-terre
//        │               └ le-tournage
//        └ cuisson
// contact
const TREE: Node[] = [
  { id: 1, parent_id: null, title: 'Guides', slug: 'guides' },
  { id: 2, parent_id: 1, title: 'Bien démarrer', slug: 'bien-demarrer' },
  { id: 3, parent_id: 1, title: 'Cuisson', slug: 'cuisson' },
  { id: 4, parent_id: 2, title: 'Préparer la terre', slug: 'preparer-la-terre' },
  { id: 5, parent_id: 2, title: 'Le tournage', slug: 'le-tournage' },
  { id: 6, parent_id: 4, title: 'Choisir sa terre', slug: 'choisir-sa-terre' },
  { id: 7, parent_id: 4, title: 'Conserver la terre', slug: 'conserver-la-terre' },
  { id: 8, parent_id: 4, title: 'Le pétrissage', slug: 'le-petrissage' },
  { id: 9, parent_id: null, title: 'Contact', slug: 'contact' },
];

function urlOf(node: Node): string {
  const parent = TREE.find((other) => other.id === node.parent_id);
  return (parent ? urlOf(parent) : '') + '/' + node.slug;
}

type Done = (error: Error | null, value?: unknown) => void;

/** The theme's views in front of the site's, and the filters the engine gives them, on TREE; `reads` counts the data filters' calls. */
function docsViews(reads: string[]): nunjucks.Environment {
  const views = new nunjucks.Environment(new nunjucks.FileSystemLoader([path.join(THEME_DIR, 'views'), viewsDir, moduleViewsDirectory('pages')]), {
    autoescape: true,
  });
  views.addFilter(
    'listPublicChildPages',
    (parentId: unknown, done: Done) => {
      reads.push(`children of ${String(parentId)}`);
      const parent = typeof parentId === 'number' ? parentId : null;
      // The site's order: by title.
      const items = TREE.filter((node) => node.parent_id === parent)
        .sort((a, b) => a.title.localeCompare(b.title, 'fr'))
        .map((node) => ({ ...node, url: urlOf(node) }));
      setImmediate(() => done(null, items));
    },
    true,
  );
  views.addFilter(
    'getPublishedPageBySegments',
    (segments: string[], done: Done) => {
      reads.push(`page ${segments.join('/')}`);
      setImmediate(() => done(null, TREE.find((node) => urlOf(node) === '/' + segments.join('/')) ?? null));
    },
    true,
  );
  // The engine's filter renders the paragraphs' Markdown subset, escaped; here, the escaping alone.
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  views.addFilter('markdown', (text: string) => new nunjucks.runtime.SafeString(`<p>${escape(text)}</p>`));
  views.addFilter('frenchDate', () => '26 novembre 2026');
  views.addFilter('frenchDateTime', () => '26 novembre 2026 à 10 h');
  views.addGlobal('themeName', 'docs');
  views.addGlobal('themeStylesheets', ['/theme/docs/theme.0123abcd.css']);
  return views;
}

function render(views: nunjucks.Environment, view: string, locals: Record<string, unknown>): Promise<string> {
  return new Promise((resolve, reject) => views.render(view, locals, (error, html) => (error ? reject(error) : resolve(html ?? ''))));
}

/** The locals the site's render gives a page's template (services/pages-rendering.ts). */
function pageLocals(id: number, template = 'default', blocks: unknown[] = []): Record<string, unknown> {
  const node = TREE.find((other) => other.id === id)!;
  const ancestors: Node[] = [];
  for (let parent = TREE.find((other) => other.id === node.parent_id); parent; parent = TREE.find((other) => other.id === parent.parent_id))
    ancestors.unshift(parent);
  return {
    site: { title: 'Atelier', tagline: 'Cours de céramique', time_zone: 'Europe/Paris' },
    page: { ...node, template, updated_at: new Date('2026-11-26T10:00:00Z') },
    blocks,
    children: [],
    navigationHtml: '<nav class="site-nav" aria-label="Navigation principale"></nav>',
    breadcrumbs: ancestors.map((ancestor) => ({ title: ancestor.title, url: urlOf(ancestor) })),
    meta: { title: node.title, canonical: `https://exemple.fr${urlOf(node)}` },
  };
}

/** The section navigation's links: [text, href, aria-current or ''], indented by level. */
function sideNavigation(html: string): string[] {
  const nav = /<nav class="docs-nav"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '';
  const lines: string[] = [];
  let depth = 0;
  for (const match of nav.matchAll(/<(\/?)ul>|<a href="([^"]*)"(?: aria-current="([^"]*)")?>([^<]*)<\/a>/g)) {
    if (match[0] === '<ul>') depth++;
    else if (match[0] === '</ul>') depth--;
    else lines.push(`${'  '.repeat(Math.max(depth - 1, 0))}${match[4]} ${match[2]}${match[3] ? ` [${match[3]}]` : ''}`);
  }
  return lines;
}

describe('the documentation theme (themes/docs)', () => {
  it('declares the guide template and the callout block as the engine reads them, its stylesheet and thumbnail present', () => {
    const manifest = JSON.parse(readFileSync(path.join(THEME_DIR, 'theme.json'), 'utf8'));
    expect(manifest).to.include({ name: 'docs', label: 'Documentation', version: '1.0.0' });
    expect(manifest.stylesheets).to.deep.equal(['theme.css']);
    expect(manifest.templates.guide).to.deep.equal({ label: 'Guide', view: 'site/templates/guide.njk', listsChildren: false });
    expect(manifest.blocks.callout.view).to.equal('site/blocks/callout.njk');
    expect(manifest.blocks.callout.fields.tone).to.include({ type: 'select', required: true });
    expect(manifest.blocks.callout.fields.tone.options.map((option: { value: string }) => option.value)).to.deep.equal(['info', 'tip', 'warning']);
    expect(manifest.blocks.callout.fields.text).to.deep.equal({ type: 'markdown', label: 'Texte', required: true });
    for (const file of ['assets/theme.css', 'thumbnail.svg', 'views/site/layout.njk', 'views/site/templates/guide.njk', 'views/site/blocks/callout.njk'])
      expect(readFileSync(path.join(THEME_DIR, file), 'utf8'), file).to.not.equal('');
  });

  it('shows a depth-4 page with its section open down to it, and links to the previous and next of its siblings', async () => {
    const reads: string[] = [];
    const html = await render(docsViews(reads), 'site/templates/default.njk', pageLocals(8));
    expect(html).to.include('<body class="site docs " data-theme="docs">');
    expect(html).to.include('<link rel="stylesheet" href="/theme/docs/theme.0123abcd.css">');
    expect(html).to.not.include('/assets/css/pages.css');
    expect(sideNavigation(html)).to.deep.equal([
      'Guides /guides',
      'Bien démarrer /guides/bien-demarrer [true]',
      '  Le tournage /guides/bien-demarrer/le-tournage',
      '  Préparer la terre /guides/bien-demarrer/preparer-la-terre [true]',
      '    Choisir sa terre /guides/bien-demarrer/preparer-la-terre/choisir-sa-terre',
      '    Conserver la terre /guides/bien-demarrer/preparer-la-terre/conserver-la-terre',
      '    Le pétrissage /guides/bien-demarrer/preparer-la-terre/le-petrissage [page]',
      'Cuisson /guides/cuisson',
    ]);
    const pager = /<nav class="docs-pager"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '';
    expect([...pager.matchAll(/href="([^"]*)" rel="(prev|next)"/g)].map((match) => `${match[2]} ${match[1]}`)).to.deep.equal([
      'prev /guides/bien-demarrer/preparer-la-terre/conserver-la-terre',
      // Le pétrissage is the last by title: no next.
    ]);
    // The page's breadcrumbs and title, from the site's own page body.
    expect(html).to.include('<nav class="breadcrumbs" aria-label="Fil d’Ariane">');
    expect(html).to.include('<h1>Le pétrissage</h1>');
    expect(reads).to.deep.equal(['page guides', 'children of 1', 'children of 4', 'children of 2', 'children of 4']);
  });

  it('gives a page among its siblings both neighbours, and a root page the sections when it has no sub-pages', async () => {
    const middle = await render(docsViews([]), 'site/templates/default.njk', pageLocals(7));
    expect(middle).to.match(/href="\/guides\/bien-demarrer\/preparer-la-terre\/choisir-sa-terre" rel="prev"/);
    expect(middle).to.match(/href="\/guides\/bien-demarrer\/preparer-la-terre\/le-petrissage" rel="next"/);

    const root = await render(docsViews([]), 'site/templates/default.njk', pageLocals(9));
    expect(sideNavigation(root)).to.deep.equal(['Contact /contact [page]', 'Guides /guides']);
    expect(root).to.include('<p class="docs-nav-title" id="docs-nav-title">Rubriques</p>');
    // A root page has no previous/next: the sections are not a sequence.
    expect(root).to.not.include('docs-pager');
  });

  it('reads nothing for the 404 page', async () => {
    const reads: string[] = [];
    const html = await render(docsViews(reads), 'site/not-found.njk', { meta: { title: 'Page introuvable', noindex: true } });
    expect(html).to.include('<h1>Page introuvable</h1>');
    expect(html).to.not.include('docs-nav');
    expect(reads).to.deep.equal([]);
  });

  it('renders a guide with its date and a callout with its tone in words, its Markdown escaped', async () => {
    const blocks = [
      { type: 'callout', tone: 'warning', text: 'Ne cuisez jamais une terre <humide>.' },
      { type: 'callout', tone: 'autre', text: 'Ton inconnu' },
    ];
    // The engine names a theme block's view (blockViews); the site's page body includes it.
    const html = await render(docsViews([]), 'site/templates/guide.njk', {
      ...pageLocals(6, 'guide', blocks),
      blockViews: { callout: 'site/blocks/callout.njk' },
    });
    expect(html).to.include('<body class="site docs guide" data-theme="docs">');
    expect(html).to.include('<p class="docs-updated">Mis à jour le 26 novembre 2026</p>');
    expect(html).to.match(
      /<aside class="block block-callout callout-warning" aria-label="Attention">\s*<p class="callout-tone">Attention<\/p>\s*<p>Ne cuisez jamais une terre &lt;humide&gt;.<\/p>/,
    );
    expect(html).to.include('<aside class="block block-callout callout-info" aria-label="Information">');
  });
});
