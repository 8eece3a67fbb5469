// The public site search's SQL (migration pages/20261128000100_pages_search): the pages
// whose document matches, best first, among those the site shows (`visible`: the page
// and every ancestor public, kept by the trigger, so a draft's content, a never-published
// page, a private page and anything under one are never found), with their address and
// an excerpt. One statement for the answer (the matches, their total, the page asked for
// with addresses and excerpts); when it finds nothing, one more with each word replaced
// by the site's nearest words (pg_trgm), so that «ateliier» finds «atelier».
import type { AppContext } from '../../lib/context.js';
import { HOME_PAGE_ID_SQL, MAX_PATH_DEPTH } from './public.js';
import { PAGES_TABLE } from './schema.js';

const WORDS_TABLE = 'app_page_search_words';
const CONFIG = 'app_fr_unaccent';
export const SEARCH_MIN_LENGTH = 2;
export const SEARCH_MAX_LENGTH = 200;
/** How many matches a search ranks and counts at most: past it, `total` says «more than this». */
export const SEARCH_CANDIDATES = 1000;
/** Around the matched words of an excerpt (private-use characters, removed from the text first). */
export const MARK_START = '\uE000';
export const MARK_END = '\uE001';
/** Words shorter than this are not corrected (too many near words). */
const CORRECTED_MIN_LENGTH = 3;
/** How many of the site's words may stand for one word of the query. */
const CORRECTIONS_PER_WORD = 3;

interface SearchRow {
  id: number;
  title: string;
  url: string;
  /** The text around the matches, matched words between MARK_START and MARK_END, not escaped. */
  headline: string;
}

export interface SearchRows {
  items: SearchRow[];
  /** How many pages match, up to SEARCH_CANDIDATES. */
  total: number;
  /** More pages than SEARCH_CANDIDATES match (only that many are ranked and reachable). */
  totalCapped: boolean;
}

/** The words of a query: runs of letters and digits. */
export function queryWords(query: string): string[] {
  return query.normalize('NFC').match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** `to_tsquery` text: every word, the last one as a prefix («atel» finds «atelier»). Words hold letters and digits only. */
function prefixQuery(words: string[]): string {
  return words.map((word, index) => (index === words.length - 1 ? `${word}:*` : word)).join(' & ');
}

// The excerpt is made from a window of the text (ts_headline parses all it is given, a
// millisecond per page of text): from a little before the first place the query's
// longest word appears as typed (accents and case aside), else from the start.
const EXCERPT_SOURCE = 600;
const EXCERPT_BEFORE = 150;

const HEADLINE_OPTIONS = `StartSel="${MARK_START}", StopSel="${MARK_END}", MaxFragments=2, MaxWords=24, MinWords=10, ShortWord=2, FragmentDelimiter=" … "`;

// The matches, best first, bounded whatever the site's size: up to CANDIDATES + 1 pages
// whose title matches, then other matching pages to make up the number, each ranked on
// its whole document (title A, headings and SEO B, text C), title matches first
// (`app_page_search_hits`, migration pages/20261129000500_pages_search_slices: the table
// read slice after slice, each slice's partial GIN indexes, so a word in half the pages
// costs a slice's postings, not all of them). Only those are ranked and counted: `total`
// is exact up to CANDIDATES, and more than CANDIDATES past it. Then the page asked for
// among them, each one's address walked up from the page (its ancestors are public:
// `visible` says so), the chosen home page shown at `/`. One row even without a match
// (its total).
function searchSql(queryExpression: string): string {
  return `
    WITH RECURSIVE q AS MATERIALIZED (SELECT ${queryExpression} AS query),
    hits AS MATERIALIZED (SELECT h.page_id, h.tier, h.rank FROM q, app_page_search_hits(q.query, ${SEARCH_CANDIDATES + 1}) h),
    top AS (SELECT page_id, tier, rank FROM hits ORDER BY tier, rank DESC, page_id LIMIT ? OFFSET ?),
    up AS (
      SELECT t.page_id, p.parent_id AS next_id, p.slug::text AS path, 1 AS depth
      FROM top t JOIN ${PAGES_TABLE} p ON p.id = t.page_id
      UNION ALL
      SELECT up.page_id, a.parent_id, a.slug || '/' || up.path, up.depth + 1
      FROM up JOIN ${PAGES_TABLE} a ON a.id = up.next_id
      WHERE up.depth < ${MAX_PATH_DEPTH}
    )
    SELECT total.n AS total, p.id, p.title,
           CASE WHEN p.id = home.id THEN '/' ELSE '/' || u.path END AS url,
           ts_headline('${CONFIG}', translate(substr(src.text, greatest(1, strpos(lower(unaccent(src.text)), ?) - ${EXCERPT_BEFORE}), ${EXCERPT_SOURCE}),
             E'\\uE000\\uE001', ''), q.query, '${HEADLINE_OPTIONS}') AS headline
    FROM (SELECT count(*) AS n FROM hits) total
    CROSS JOIN q
    CROSS JOIN (SELECT ${HOME_PAGE_ID_SQL} AS id) home
    LEFT JOIN (top t JOIN ${PAGES_TABLE} p ON p.id = t.page_id JOIN up u ON u.page_id = t.page_id AND u.next_id IS NULL
               CROSS JOIN LATERAL (SELECT COALESCE(NULLIF(app_page_search_text(p.blocks), ''), app_page_search_headings(p.blocks, p.seo)) AS text) src) ON true
    ORDER BY t.tier, t.rank DESC, t.page_id`;
}

// Each word of the query (at least CORRECTED_MIN_LENGTH long), lowercased without its
// accents, stands for the site's nearest words (the trigram index, nearest first); a word
// with none near is left out.
const CORRECTED_QUERY = `(
  SELECT to_tsquery('${CONFIG}', COALESCE(string_agg('(' || c.near || ')', ' & '), ''))
  FROM (
    SELECT (SELECT string_agg(x.word, ' | ')
              FROM (SELECT v.word FROM ${WORDS_TABLE} v WHERE v.word % w.word ORDER BY v.word <-> w.word, v.word LIMIT ${CORRECTIONS_PER_WORD}) x) AS near
    FROM (SELECT unaccent(lower(u.word)) AS word FROM unnest(?::text[]) AS u(word)) w
  ) c
  WHERE c.near IS NOT NULL
)`;

/** A row of a search statement, as pg returns it. */
export interface RawRow {
  total: string | number;
  id: number | null;
  title: string;
  url: string;
  headline: string;
}

/** One statement of a search, as run (knex's `?` placeholders). */
export interface SearchStatement {
  sql: string;
  bindings: Array<string | string[] | number | null>;
}

export interface SearchOptions {
  limit: number;
  offset: number;
  chosenHomeId: number | null;
}

/** Where an excerpt starts: the longest word, lowercase without accents. */
function excerptNeedle(words: string[]): string {
  const longest = words.reduce((best, word) => (word.length > best.length ? word : best), '');
  return longest.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** How many of `limit` results from `offset` lie among the SEARCH_CANDIDATES ranked (the one counted past them is not shown). */
function reachable(limit: number, offset: number): number {
  return Math.max(0, Math.min(limit, SEARCH_CANDIDATES - offset));
}

/** The search as typed: every word, the last one as a prefix. */
export function exactSearch(words: string[], { limit, offset, chosenHomeId }: SearchOptions): SearchStatement {
  return { sql: searchSql(`to_tsquery('${CONFIG}', ?)`), bindings: [prefixQuery(words), reachable(limit, offset), offset, excerptNeedle(words), chosenHomeId] };
}

/** The search with each word replaced by the site's nearest words; null when no word is long enough to correct. */
export function correctedSearch(words: string[], { limit, offset, chosenHomeId }: SearchOptions): SearchStatement | null {
  const corrected = words.filter((word) => word.length >= CORRECTED_MIN_LENGTH);
  return corrected.length
    ? { sql: searchSql(CORRECTED_QUERY), bindings: [corrected, reachable(limit, offset), offset, excerptNeedle(words), chosenHomeId] }
    : null;
}

/** A statement's rows as the search's answer (one row even without a match: the total). */
export function searchRowsOf(rows: RawRow[]): SearchRows {
  const found = rows.length ? Number(rows[0].total) : 0;
  const items = rows.filter((row) => row.id !== null).map(({ id, title, url, headline }) => ({ id: id!, title, url, headline }));
  return { items, total: Math.min(found, SEARCH_CANDIDATES), totalCapped: found > SEARCH_CANDIDATES };
}

async function run(ctx: AppContext, statement: SearchStatement): Promise<SearchRows> {
  const { rows } = await ctx.db.raw<{ rows: RawRow[] }>(statement.sql, statement.bindings);
  return searchRowsOf(rows);
}

/**
 * The public pages matching `words` (all of them, the last as a prefix), best first:
 * `limit` of them from `offset`, and how many match. Without any match, the same search
 * with each word replaced by the site's nearest words.
 */
export async function searchPublicPages(ctx: AppContext, words: string[], options: SearchOptions): Promise<SearchRows> {
  if (words.length === 0) return { items: [], total: 0, totalCapped: false };
  const exact = await run(ctx, exactSearch(words, options));
  if (exact.total > 0) return exact;
  const corrected = correctedSearch(words, options);
  return corrected ? run(ctx, corrected) : exact;
}
