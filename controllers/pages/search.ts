// The public site search (services/pages-search.ts): the page `/recherche` in the site's
// frame (a site view a theme may restyle: site/search.njk) and its JSON twin on the
// public API. Answers are kept by the public read cache under the query's words and
// carry the tag of anything derived from the whole tree, so any page change drops them
// in every process; a refused query is answered 400 with its message, never cached.
import type { Call } from '../../routes/define.js';
import { withPublicReads } from '../../lib/context.js';
import { buildAnswer } from '../../lib/public-cache.js';
import { pageCacheTags } from '../../models/pages/cache-tags.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { renderSiteView, type RenderedPage } from '../../services/pages-rendering.js';
import { searchKey, searchSite } from '../../services/pages-search.js';
import { cachedAnswer, publicCacheControl, sendAnswer } from './public-answers.js';
import { searchText } from './schemas.js';
import { siteTitles } from './messages.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const SEARCH_PATH = '/recherche';
/** Results on one page of `/recherche`. */
const SEARCH_PAGE_SIZE = 10;

type NoParams = Record<string, never>;

const answerTags = (shows: RenderedPage['shows'] | undefined) => pageCacheTags({ pages: [], lists: [], media: [], ...shows, wholeTree: true });

// GET /app/api/pages/search?q=&limit=&offset= — public: {items: [{id, title, url, excerpt}], total, total_capped, limit, offset}
// (`total_capped`: more pages match than `total`, which stops at the search's cap).
export async function searchPagesApi(call: Call<NoParams, { q: string; limit: number; offset: number }>): Promise<void> {
  const { ctx } = call;
  const { q, limit, offset } = call.query;
  const key = `search:api:${limit}:${offset}:${searchKey(q)}`;
  const answer = await cachedAnswer(ctx, key, undefined, async (reads) => {
    const { items, total, totalCapped } = await searchSite(reads, q, limit, offset);
    return buildAnswer(JSON.stringify({ items, total, total_capped: totalCapped, limit, offset }), { contentType: JSON_TYPE, tags: answerTags(undefined) });
  });
  sendAnswer(ctx, call.res, key, answer!, publicCacheControl(ctx));
}

// GET /recherche?q=…&page=N — the form, then the results 10 a page. Without `q`, the form
// alone; a `q` the rules refuse (empty, one character, over 200) shows the form with the
// message, answered 400.
export async function showSearchPage(catalog: PageCatalog, call: Call<NoParams, { q?: string; page: number }>): Promise<void> {
  const { ctx, res } = call;
  const { page } = call.query;
  const asked = call.query.q;
  const checked = asked === undefined ? undefined : searchText.validate(asked);
  if (asked === undefined || checked?.error) {
    const rendered = await withPublicReads(ctx, (reads) =>
      renderSiteView(reads, catalog, 'site/search.njk', SEARCH_PATH, {
        query: asked ?? '',
        error: checked?.error?.details[0]?.message,
        meta: { title: siteTitles.search, noindex: true },
      }),
    );
    res
      .status(checked?.error ? 400 : 200)
      .set('Cache-Control', 'no-store')
      .type(rendered.contentType)
      .send(rendered.html);
    return;
  }
  const query: string = checked!.value;
  const key = `search:html:${page}:${query}`;
  const answer = await cachedAnswer(ctx, key, undefined, async (reads) => {
    const offset = (page - 1) * SEARCH_PAGE_SIZE;
    const { items, total, totalCapped } = await searchSite(reads, query, SEARCH_PAGE_SIZE, offset);
    const pages = Math.ceil(total / SEARCH_PAGE_SIZE);
    const link = (n: number) => `${SEARCH_PATH}?q=${encodeURIComponent(query)}${n > 1 ? `&page=${n}` : ''}`;
    const rendered = await renderSiteView(reads, catalog, 'site/search.njk', SEARCH_PATH, {
      query,
      results: items,
      total,
      totalCapped,
      page,
      first: offset + 1,
      previous: page > 1 ? link(Math.min(page - 1, Math.max(pages, 1))) : undefined,
      next: page < pages ? link(page + 1) : undefined,
      meta: { title: siteTitles.searchFor(query), noindex: true },
    });
    return buildAnswer(rendered.html, { contentType: rendered.contentType, lastModified: rendered.lastModified, tags: answerTags(rendered.shows) });
  });
  sendAnswer(ctx, res, key, answer!, publicCacheControl(ctx));
}
