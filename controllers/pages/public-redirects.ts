// A public path that missed: its redirect, read by one statement only after the page
// lookup found nothing (a page that exists never pays for it). The answer is kept by the
// read cache like a page: a 301 to the page's current path, or a 410 for a deleted page;
// it is dropped when the redirects change (their trigger notifies `redirects`) or when the
// target's chain moves or turns private. No redirect, or a private target: null (404).
import type { AppContext } from '../../lib/context.js';
import { buildAnswer, type CachedAnswer } from '../../lib/public-cache.js';
import { pageCacheTags } from '../../models/pages/cache-tags.js';
import { heldSiteViews } from '../../lib/themes.js';
import { renderView } from '../../lib/views.js';
import { findRedirect } from '../../models/pages/redirects.js';
import { HOME_SLUG, isResolvablePath } from '../../models/pages/public.js';
import { goneMessage, siteTitles } from './messages.js';

const HTML_TYPE = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

function movedAnswer(location: string, ids: number[], contentType: string, body: string): CachedAnswer {
  return buildAnswer(body, { contentType, status: 301, location, tags: pageCacheTags({ redirect: true, pages: ids, lists: [], media: [] }) });
}

function goneAnswer(contentType: string, body: string): CachedAnswer {
  return buildAnswer(body, { contentType, status: 410, tags: pageCacheTags({ redirect: true, pages: [], lists: [], media: [] }) });
}

/** The site (`/a/b`): 301 to the page's current URL (`/` for the home page), or the 410 page. */
export async function siteRedirectAnswer(ctx: AppContext, segments: string[]): Promise<CachedAnswer | null> {
  const found = await findRedirect(ctx, '/' + segments.join('/'));
  if (!found) return null;
  if (found.gone) {
    return goneAnswer(HTML_TYPE, await renderView(heldSiteViews(ctx), 'site/gone.njk', { meta: { title: siteTitles.gone, noindex: true } }));
  }
  const location = found.path === `/${HOME_SLUG}` ? '/' : found.path;
  return movedAnswer(location, found.ids, HTML_TYPE, '');
}

/** `GET /app/api/pages/by-path?path=a/b`: 301 to the by-path URL of the current path, or 410. */
export async function apiRedirectAnswer(ctx: AppContext, segments: string[]): Promise<CachedAnswer | null> {
  if (!isResolvablePath(segments)) return null;
  const found = await findRedirect(ctx, '/' + segments.join('/'));
  if (!found) return null;
  if (found.gone) return goneAnswer(JSON_TYPE, JSON.stringify({ error: goneMessage, code: 'gone' }));
  const location = `/app/api/pages/by-path?path=${encodeURIComponent(found.path.slice(1))}`;
  return movedAnswer(location, found.ids, JSON_TYPE, '');
}
