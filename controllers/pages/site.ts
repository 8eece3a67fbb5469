// The public site of the pages module: the last route answers the page at any path,
// rendered by services/pages-rendering.ts; `/` is the home page (the sitemap is in
// sitemap.ts). All data comes from the server functions, in-process (never through the
// HTTP routes). Rendered pages are kept by the public read cache and carry a strong
// ETag (304 when current).
import type { Response } from 'express';
import type { AppContext } from '../../lib/context.js';
import type { Call } from '../../routes/define.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { needsFirstRun } from '../../models/auth/registration.js';
import { buildAnswer, type CachedAnswer } from '../../lib/public-cache.js';
import { pageCacheTags } from '../../models/pages/cache-tags.js';
import { renderPage, renderRootList, type RenderedPage } from '../../services/pages-rendering.js';
import { cachedAnswer, NotShared, publicCacheControl, sendAnswer } from './public-answers.js';
import { answerMemberPage } from './member-pages.js';
import { siteRedirectAnswer } from './public-redirects.js';
import { HOME_SLUG, isResolvablePath, listPublicChildrenAt, publicPlaceOf, resolvePublicPage, type ResolvedPage } from '../../models/pages/public.js';
import { attachMedia } from '../../models/pages/media.js';
import { heldSiteViews } from '../../lib/themes.js';
import { heldSiteLook, siteLook } from '../../models/settings/store.js';
import { siteTitles } from './messages.js';

/** A rendered page as an answer the read cache can keep, depending on what it shows. */
function pageAnswer(rendered: RenderedPage, alsoShows: number[] = []): CachedAnswer {
  const tags = pageCacheTags({ ...rendered.shows, pages: [...rendered.shows.pages, ...alsoShows] });
  return buildAnswer(rendered.html, { contentType: rendered.contentType, lastModified: rendered.lastModified, tags });
}

/** The resolved page with its image blocks' media (once the page is known to be for everyone). */
async function withMedia(reads: AppContext, resolved: ResolvedPage): Promise<ResolvedPage> {
  resolved.page.blocks = await attachMedia(reads, resolved.page.blocks);
  return resolved;
}

/**
 * The home page's chain of slugs: the page chosen in the settings while it is public,
 * else today's rule, the root page `accueil`.
 */
async function homeSegments(reads: AppContext): Promise<string[]> {
  const chosen = (await siteLook(reads)).home_page_id;
  const place = chosen === null ? null : await publicPlaceOf(reads, chosen);
  return place ? place.path.slice(1).split('/') : [HOME_SLUG];
}

/** The 404 page: it reads nothing (the site's settings only when this process holds them already). */
export function notFoundPage(res: Response, ctx?: AppContext): void {
  const locals = { site: ctx && heldSiteLook(ctx), meta: { title: siteTitles.notFound, noindex: true } };
  // In the active theme's views when this process holds it already (a theme may restyle the 404 page).
  if (!ctx) return res.status(404).render('site/not-found.njk', locals);
  heldSiteViews(ctx).render('site/not-found.njk', locals, (error: Error | null, html: string | null) =>
    error
      ? res.req.next!(error)
      : void res
          .status(404)
          .type('html')
          .send(html ?? ''),
  );
}

/** `/` while no account exists: says so and links to the first run; never cached anywhere. */
function renderNotConfigured(ctx: AppContext, res: Response): void {
  res.set('Cache-Control', 'no-store');
  res.render('site/not-configured.njk', { meta: { title: ctx.config.appName, noindex: true } });
}

// GET / — the home page chosen in the settings, else the public root page whose slug is
// `accueil`, else a list of the root pages; on an empty site without any account yet,
// the «not configured» page. The answer also depends on the chosen page's visibility.
export async function renderHome(catalog: PageCatalog, call: Call): Promise<void> {
  const { ctx, res } = call;
  let notConfigured = false;
  const answer = await cachedAnswer(ctx, 'html:/', undefined, async (reads) => {
    const chosen = (await siteLook(reads)).home_page_id;
    const alsoShows = chosen === null ? [] : [chosen];
    const segments = await homeSegments(reads);
    // A home page for members is answered per reader (member-pages.ts), never stored.
    const found = await resolvePublicPage(reads, segments);
    if (found?.restricted) return new NotShared(found);
    if (found) return pageAnswer(await renderPage(reads, catalog, await withMedia(reads, found), '/'), alsoShows);
    const { items } = await listPublicChildrenAt(reads, null, '', { limit: 200 });
    // Only an empty site asks whether an account exists (one statement, until one does):
    // the answer is then not stored, so the first run shows at once in every process.
    if (items.length === 0 && (await needsFirstRun(ctx))) {
      notConfigured = true;
      return null;
    }
    return pageAnswer(await renderRootList(reads, catalog, items), alsoShows);
  });
  if (notConfigured) return renderNotConfigured(ctx, res);
  if (answer instanceof NotShared) return answerMemberPage(catalog, call, answer.value, '/');
  sendAnswer(ctx, res, 'html:/', answer!, publicCacheControl(ctx));
}

// GET /* — the catch-all, mounted last: the public page at this path, or the 404 page.
export async function renderPublicPage(catalog: PageCatalog, call: Call): Promise<void> {
  const { ctx, req, res } = call;
  const path = req.path;
  if (path.startsWith('//')) return notFoundPage(res, ctx);
  if (path.length > 1 && path.endsWith('/')) {
    // One canonical URL per page: `/a/b/` → `/a/b` (the query string kept).
    const queryIndex = req.originalUrl.indexOf('?');
    const query = queryIndex >= 0 ? req.originalUrl.slice(queryIndex) : '';
    const target = path.replace(/\/+$/, '');
    // Only to a path made of slugs: never to `//host` or `/\host` (open redirect).
    return isResolvablePath(target.slice(1).split('/')) ? res.redirect(301, target + query) : notFoundPage(res, ctx);
  }
  const segments = path.slice(1).split('/');
  if (!isResolvablePath(segments)) return notFoundPage(res, ctx);
  const key = `html:${path}`;
  let memberUrl = path;
  const answer = await cachedAnswer(ctx, key, segments.join('/'), async (reads) => {
    const found = await resolvePublicPage(reads, segments);
    if (!found) return siteRedirectAnswer(reads, segments);
    const home = (await siteLook(reads)).home_page_id;
    const isHome = home === null ? segments.length === 1 && segments[0] === HOME_SLUG : found.page.id === home;
    if (found.restricted) {
      memberUrl = isHome ? '/' : path;
      return new NotShared(found);
    }
    const resolved = await withMedia(reads, found);
    // The home page at its own address is shown as `/` (its canonical URL): the chosen
    // one, or, while none is chosen, the root page `accueil`.
    return pageAnswer(await renderPage(reads, catalog, resolved, isHome ? '/' : path));
  });
  if (!answer) return notFoundPage(res, ctx);
  if (answer instanceof NotShared) return answerMemberPage(catalog, call, answer.value, memberUrl);
  const queryIndex = req.originalUrl.indexOf('?');
  sendAnswer(ctx, res, key, answer, publicCacheControl(ctx), queryIndex >= 0 ? req.originalUrl.slice(queryIndex) : '');
}
