// The public site search, one use case behind `GET /recherche` (HTML) and
// `GET /app/api/pages/search` (JSON): the query's words looked up among the pages the
// site shows (models/pages/search.ts), each result with its excerpt as HTML: the text
// escaped, the matched words in <mark>. The answers' caching is the controllers'.
import type { AppContext } from '../lib/context.js';
import { MARK_END, MARK_START, queryWords, searchPublicPages } from '../models/pages/search.js';
import { siteLook } from '../models/settings/store.js';

interface SearchResult {
  id: number;
  title: string;
  url: string;
  /** HTML: escaped text, matched words in <mark>. */
  excerpt: string;
}

export interface SearchAnswer {
  items: SearchResult[];
  /** How many pages match, counted up to SEARCH_CANDIDATES (models/pages/search.ts). */
  total: number;
  /** More pages match than `total` says (only the first SEARCH_CANDIDATES are ranked). */
  totalCapped: boolean;
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The headline as HTML: everything escaped, then the marks PostgreSQL placed become <mark>. */
function excerptHtml(headline: string): string {
  return headline
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[&<>"']/g, (char) => HTML_ENTITIES[char])
    .replaceAll(MARK_START, '<mark>')
    .replaceAll(MARK_END, '</mark>');
}

/** The key a query's answers are cached under: what the search depends on (its words), not how they were typed. */
export function searchKey(query: string): string {
  return queryWords(query).join(' ').toLowerCase();
}

/** `limit` results from `offset` for `query` (already checked: 2 to 200 characters), and how many there are. */
export async function searchSite(ctx: AppContext, query: string, limit: number, offset: number): Promise<SearchAnswer> {
  const chosenHomeId = (await siteLook(ctx)).home_page_id;
  const { items, total, totalCapped } = await searchPublicPages(ctx, queryWords(query), { limit, offset, chosenHomeId });
  return { items: items.map(({ id, title, url, headline }) => ({ id, title, url, excerpt: excerptHtml(headline) })), total, totalCapped };
}
