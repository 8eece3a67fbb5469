// The public site of the pages module: the last route renders the page at any path
// through its template; `/` is the home page (the sitemap is in sitemap.ts). All data
// comes from the server functions, in-process (never through the HTTP routes).
import type { Response } from 'express';
import type { AppContext } from '../../lib/context.js';
import type { Call } from '../../routes/define.js';
import { renderableBlocks, safeHref } from '../../models/pages/blocks.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
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

/**
 * Page rendering, the one use case behind `/` and every page URL: the template's view
 * with the blocks a template may receive, the sub-pages when something lists them,
 * breadcrumbs and the SEO metadata.
 */
export async function renderPage(ctx: AppContext, res: Response, catalog: PageCatalog, resolved: ResolvedPage, url: string): Promise<void> {
  const { page, ancestorTitles, segments } = resolved;
  const template = catalog.templates.get(page.template);
  const blocks = renderableBlocks(ctx, catalog.blocks, page.blocks, page.id);
  let children: PublicPageSummary[] = [];
  if (template.listsChildren || blocks.some((block) => block.type === 'children')) {
    children = (await listPublicChildrenAt(ctx, page.id, '/' + segments.join('/'), { limit: 200 })).items;
  }
  const seo = page.seo && typeof page.seo === 'object' ? page.seo : {};
  const firstImage = blocks.find((block) => block.type === 'image');
  const image = safeHref(seo.image) ?? (firstImage?.url as string | undefined);
  res.render(template.view, {
    page,
    blocks,
    children,
    breadcrumbs: ancestorTitles.map((title, index) => ({ title, url: '/' + segments.slice(0, index + 1).join('/') })),
    meta: {
      title: nonEmpty(seo.title) ?? page.title,
      description: nonEmpty(seo.description),
      canonical: absoluteUrl(ctx.config.baseUrl, url),
      image: image ? absoluteUrl(ctx.config.baseUrl, image) : undefined,
      noindex: seo.noindex === true,
    },
  });
}

export function notFoundPage(res: Response): void {
  res.status(404).render('site/not-found.njk', { meta: { title: 'Page introuvable', noindex: true } });
}

// GET / — the public root page whose slug is `accueil`, else a list of the root pages.
export async function renderHome(catalog: PageCatalog, call: Call): Promise<void> {
  const { ctx, res } = call;
  const resolved = await resolvePublishedPage(ctx, [HOME_SLUG]);
  if (resolved) return renderPage(ctx, res, catalog, resolved, '/');
  const { items } = await listPublicChildrenAt(ctx, null, '', { limit: 200 });
  res.render('site/home.njk', { children: items, meta: { title: ctx.config.appName, canonical: absoluteUrl(ctx.config.baseUrl, '/') } });
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
  const resolved = await resolvePublishedPage(ctx, segments);
  if (!resolved) return notFoundPage(res);
  await renderPage(ctx, res, catalog, resolved, segments.length === 1 && segments[0] === HOME_SLUG ? '/' : path);
}
