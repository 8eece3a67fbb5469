// The public site of the pages module: the last route renders the page at any path
// through its template; `/` is the home page (the sitemap is in sitemap.ts). All data
// comes from the server functions, in-process (never through the HTTP routes). Rendered
// pages are kept by the public read cache and carry a strong ETag (304 when current).
import type { Response } from 'express';
import type { AppContext } from '../../lib/context.js';
import type { Call } from '../../routes/define.js';
import { renderableBlocks, safeHref, type Block } from '../../models/pages/blocks.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { readRenderFacts, type NavigationLink } from '../../models/pages/navigation.js';
import { needsFirstRun } from '../../models/auth/registration.js';
import { buildAnswer, type CachedAnswer } from '../../lib/public-cache.js';
import { cachedAnswer, publicCacheControl, sendAnswer } from './public-answers.js';
import { siteRedirectAnswer } from './public-redirects.js';
import {
  HOME_SLUG,
  isResolvablePath,
  listPublicChildrenAt,
  resolvePublishedPage,
  type PublicPageSummary,
  type ResolvedPage,
} from '../../models/pages/public.js';

/** `path` under the site's base URL (an absolute URL stays as it is). */
export function absoluteUrl(baseUrl: string, path: string): string {
  return /^https?:\/\//i.test(path) ? path : baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : '/' + path);
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

const HTML_TYPE = 'text/html; charset=utf-8';

/** The view rendered to a string (res.locals included, as res.render would). */
function renderToString(res: Response, view: string, locals: Record<string, unknown>): Promise<string> {
  return new Promise((resolve, reject) => res.render(view, locals, (error: Error | null, html?: string) => (error ? reject(error) : resolve(html ?? ''))));
}

/** Ids of the media an image block names (shown or not: a media created later would appear). */
function mediaIdsOf(blocks: unknown): number[] {
  const ids = new Set<number>();
  for (const block of Array.isArray(blocks) ? (blocks as Array<Record<string, unknown>>) : []) {
    if (block && block.type === 'image' && Number.isInteger(block.media_id)) ids.add(block.media_id as number);
  }
  return [...ids];
}

function latest(...times: Array<Date | string | undefined>): Date | undefined {
  const values = times.filter((time) => time !== undefined).map((time) => new Date(time).getTime());
  return values.length ? new Date(Math.max(...values)) : undefined;
}

/** Paragraphs get their Markdown subset rendered (markdown.ts); the block objects are copies. */
function withParagraphHtml(catalog: PageCatalog, blocks: Block[]): Block[] {
  for (const block of blocks) if (block.type === 'paragraph' && typeof block.text === 'string') block.html = catalog.markdown.render(block.text);
  return blocks;
}

/** The navigation with the link of the page shown (`page`) or of its section (`true`) marked for aria-current. */
function navigationAt(navigation: NavigationLink[], url: string): Array<NavigationLink & { current?: string }> {
  return navigation.map((link) => {
    if (link.url === url) return { ...link, current: 'page' };
    return link.url !== '/' && url.startsWith(link.url + '/') ? { ...link, current: 'true' } : link;
  });
}

/**
 * The header's navigation as HTML, rendered once per distinct links and current link:
 * a template loop over 13 links cost more than the rest of a page's render (65 µs
 * against 53 µs, measured), and every page of a section shows the same one.
 */
async function navigationHtml(res: Response, catalog: PageCatalog, navigation: NavigationLink[], url: string): Promise<string> {
  const links = navigationAt(navigation, url);
  const key = JSON.stringify(links);
  const known = catalog.fragments.get(key);
  if (known !== undefined) return known;
  const html = await renderToString(res, 'site/navigation.njk', { navigation: links });
  catalog.fragments.set(key, html);
  return html;
}

export interface RenderOptions {
  /** A preview: never indexed whatever the page's SEO says, and no canonical URL (it may not exist yet). */
  preview?: boolean;
}

/**
 * Page rendering, the one use case behind `/`, every page URL and the previews: the
 * template's view with the blocks a template may receive, the sub-pages when something
 * lists them, the navigation, breadcrumbs and the SEO metadata; returned as an answer
 * the read cache can keep, with what it depends on (the page's chain, its sub-pages,
 * its media, the root pages).
 */
export async function renderPage(
  ctx: AppContext,
  res: Response,
  catalog: PageCatalog,
  resolved: ResolvedPage,
  url: string,
  options: RenderOptions = {},
): Promise<CachedAnswer> {
  const { page, ancestorTitles, ancestorIds, segments } = resolved;
  const template = catalog.templates.get(page.template);
  const blocks = withParagraphHtml(catalog, renderableBlocks(ctx, catalog.blocks, page.blocks, page.id));
  let children: PublicPageSummary[] = [];
  const listsChildren = template.listsChildren || blocks.some((block) => block.type === 'children');
  if (listsChildren) {
    children = (await listPublicChildrenAt(ctx, page.id, '/' + segments.join('/'), { limit: 200 })).items;
  }
  const seo = page.seo && typeof page.seo === 'object' ? page.seo : {};
  const firstImage = blocks.find((block) => block.type === 'image');
  const image = safeHref(seo.image) ?? (firstImage?.url as string | undefined);
  const media = mediaIdsOf(page.blocks);
  const facts = await readRenderFacts(ctx, media);
  const isHome = url === '/';
  const html = await renderToString(res, template.view, {
    page,
    blocks,
    children,
    navigationHtml: await navigationHtml(res, catalog, facts.navigation, url),
    // The home page has none; every other level starts at the home page.
    breadcrumbs: isHome ? undefined : ancestorTitles.map((title, index) => ({ title, url: '/' + segments.slice(0, index + 1).join('/') })),
    meta: {
      title: nonEmpty(seo.title) ?? page.title,
      description: nonEmpty(seo.description),
      canonical: options.preview ? undefined : absoluteUrl(ctx.config.baseUrl, url),
      image: image ? absoluteUrl(ctx.config.baseUrl, image) : undefined,
      noindex: options.preview === true || seo.noindex === true,
    },
  });
  return buildAnswer(html, {
    contentType: HTML_TYPE,
    lastModified: latest(page.updated_at, facts.changedAt),
    page: page.id,
    pages: [...ancestorIds, page.id],
    lists: listsChildren ? [page.id] : [],
    media,
    navigation: true,
  });
}

export function notFoundPage(res: Response): void {
  res.status(404).render('site/not-found.njk', { meta: { title: 'Page introuvable', noindex: true } });
}

/** `/` while no account exists: says so and links to the first run; never cached anywhere. */
function renderNotConfigured(ctx: AppContext, res: Response): void {
  res.set('Cache-Control', 'no-store');
  res.render('site/not-configured.njk', { meta: { title: ctx.config.appName, noindex: true } });
}

// GET / — the public root page whose slug is `accueil`, else a list of the root pages;
// on an empty site without any account yet, the «not configured» page.
export async function renderHome(catalog: PageCatalog, call: Call): Promise<void> {
  const { ctx, res } = call;
  let notConfigured = false;
  const answer = await cachedAnswer(ctx, 'html:/', undefined, async (reads) => {
    const resolved = await resolvePublishedPage(reads, [HOME_SLUG]);
    if (resolved) return renderPage(reads, res, catalog, resolved, '/');
    const { items } = await listPublicChildrenAt(reads, null, '', { limit: 200 });
    // Only an empty site asks whether an account exists (one statement, until one does):
    // the answer is then not stored, so the first run shows at once in every process.
    if (items.length === 0 && (await needsFirstRun(ctx))) {
      notConfigured = true;
      return null;
    }
    const facts = await readRenderFacts(reads, []);
    const html = await renderToString(res, 'site/home.njk', {
      children: items,
      navigationHtml: await navigationHtml(res, catalog, facts.navigation, '/'),
      meta: { title: ctx.config.appName, canonical: absoluteUrl(ctx.config.baseUrl, '/') },
    });
    // The root list shows root pages only: it changes with them (and with the creation of a home page).
    return buildAnswer(html, { contentType: HTML_TYPE, lastModified: facts.changedAt, pages: [], lists: [0], media: [], navigation: true });
  });
  if (notConfigured) return renderNotConfigured(ctx, res);
  sendAnswer(res, answer!, publicCacheControl(ctx));
}

// GET /* — the catch-all, mounted last: the public page at this path, or the 404 page.
export async function renderPublicPage(catalog: PageCatalog, call: Call): Promise<void> {
  const { ctx, req, res } = call;
  const path = req.path;
  if (path.startsWith('//')) return notFoundPage(res);
  if (path.length > 1 && path.endsWith('/')) {
    // One canonical URL per page: `/a/b/` → `/a/b` (the query string kept).
    const queryIndex = req.originalUrl.indexOf('?');
    const query = queryIndex >= 0 ? req.originalUrl.slice(queryIndex) : '';
    const target = path.replace(/\/+$/, '');
    // Only to a path made of slugs: never to `//host` or `/\host` (open redirect).
    return isResolvablePath(target.slice(1).split('/')) ? res.redirect(301, target + query) : notFoundPage(res);
  }
  const segments = path.slice(1).split('/');
  if (!isResolvablePath(segments)) return notFoundPage(res);
  const answer = await cachedAnswer(ctx, `html:${path}`, segments.join('/'), async (reads) => {
    const resolved = await resolvePublishedPage(reads, segments);
    if (!resolved) return siteRedirectAnswer(reads, res, segments);
    return renderPage(reads, res, catalog, resolved, segments.length === 1 && segments[0] === HOME_SLUG ? '/' : path);
  });
  if (!answer) return notFoundPage(res);
  const queryIndex = req.originalUrl.indexOf('?');
  sendAnswer(res, answer, publicCacheControl(ctx), queryIndex >= 0 ? req.originalUrl.slice(queryIndex) : '');
}
