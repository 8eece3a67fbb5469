// The public site of the pages module: the last route renders the page at any path
// through its template; `/` is the home page; `/sitemap.xml` lists public pages. All
// data comes from the server functions, in-process (never through the HTTP routes).
import type { NextFunction, Request, Response } from 'express';
import { activeConfig } from '../../lib/config.js';
import { logger } from '../../lib/logger.js';
import type { Block } from '../../models/pages/pages.js';
import {
  HOME_SLUG,
  isResolvablePath,
  listAllPublicPageUrls,
  listPublicChildrenAt,
  resolvePublishedPage,
  type PublicPageSummary,
  type ResolvedPage,
} from '../../models/pages/public.js';
import { getPageTemplate } from '../../models/pages/templates.js';

/** Block types that have a partial in views/site/blocks/. */
export const BLOCK_TYPES = new Set(['heading', 'paragraph', 'image', 'list', 'quote', 'link', 'children']);
const loggedUnknownTypes = new Set<string>();

function knownBlocks(blocks: Block[], pageId: number): Block[] {
  const kept: Block[] = [];
  for (const block of Array.isArray(blocks) ? blocks : []) {
    if (block && BLOCK_TYPES.has(block.type)) {
      kept.push(block.type === 'link' ? { ...block, href: safeHref(block.href) } : block);
    } else if (!loggedUnknownTypes.has(String(block?.type))) {
      // Once per type and process: a page viewed often must not flood the log.
      loggedUnknownTypes.add(String(block?.type));
      logger.warn({ type: block?.type, pageId }, 'unknown page block type skipped');
    }
  }
  return kept;
}

/** Links only to http(s) or to a path of this site: never `javascript:` and the like. */
export function safeHref(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const href = value.trim();
  if (/^\/(?!\/)/.test(href)) return href;
  return /^https?:\/\/[^\s]+$/i.test(href) ? href : null;
}

function absolute(baseUrl: string, path: string): string {
  return /^https?:\/\//i.test(path) ? path : baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : '/' + path);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

async function renderPage(res: Response, resolved: ResolvedPage, url: string): Promise<void> {
  const { page, ancestorTitles, segments } = resolved;
  const config = activeConfig();
  const template = getPageTemplate(page.template);
  const blocks = knownBlocks(page.blocks, page.id);
  let children: PublicPageSummary[] = [];
  if (template.listsChildren || blocks.some((block) => block.type === 'children')) {
    children = (await listPublicChildrenAt(page.id, '/' + segments.join('/'), { limit: 200 })).items;
  }
  const seo = page.seo ?? {};
  const firstImage = blocks.find((block) => block.type === 'image' && typeof block.url === 'string');
  const image = text(seo.image) ?? (firstImage?.url as string | undefined);
  res.render(template.view, {
    page,
    blocks,
    children,
    breadcrumbs: ancestorTitles.map((title, index) => ({ title, url: '/' + segments.slice(0, index + 1).join('/') })),
    meta: {
      title: text(seo.title) ?? page.title,
      description: text(seo.description),
      canonical: absolute(config.baseUrl, url),
      image: image ? absolute(config.baseUrl, image) : undefined,
      noindex: seo.noindex === true,
    },
  });
}

function notFoundPage(res: Response): void {
  res.status(404).render('site/not-found.njk', { meta: { title: 'Page introuvable', noindex: true } });
}

// GET / — the public root page whose slug is `accueil`, else a list of the root pages.
export async function renderHome(_req: Request, res: Response): Promise<void> {
  const resolved = await resolvePublishedPage([HOME_SLUG]);
  if (resolved) return renderPage(res, resolved, '/');
  const { items } = await listPublicChildrenAt(null, '', { limit: 200 });
  res.render('site/home.njk', { children: items, meta: { title: activeConfig().appName, canonical: absolute(activeConfig().baseUrl, '/') } });
}

// GET /* — the catch-all, mounted last: the public page at this path, or the 404 page.
export async function renderPublicPage(req: Request, res: Response, next: NextFunction): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return next();
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
  const resolved = await resolvePublishedPage(segments);
  if (!resolved) return notFoundPage(res);
  await renderPage(res, resolved, segments.length === 1 && segments[0] === HOME_SLUG ? '/' : path);
}

// GET /sitemap.xml
export async function renderSitemap(_req: Request, res: Response): Promise<void> {
  const baseUrl = activeConfig().baseUrl;
  const pages = await listAllPublicPageUrls();
  const entries = [{ loc: absolute(baseUrl, '/'), lastmod: undefined as string | undefined }];
  for (const page of pages) {
    if (page.url === `/${HOME_SLUG}`) continue;
    entries.push({ loc: absolute(baseUrl, page.url), lastmod: new Date(page.updated_at).toISOString() });
  }
  res.type('application/xml');
  res.render('site/sitemap.njk', { entries });
}
