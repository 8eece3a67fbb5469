// The sitemap's data: how many files the public tree fills, where each file starts and
// ends (ids, positions among public pages), and its URLs read in keyset batches by id.
// Nothing here holds more than one batch: a file is written to the response batch by
// batch (controllers/pages/sitemap.ts).
//
// File n covers the public pages at positions [start(n), start(n + 1)) in id order,
// start(1) = 0 and start(n) = (n - 1) × perFile − 1: the first file keeps one slot for
// the home URL `/`, so no file ever holds more than `perFile` URLs. A page under a
// private ancestor keeps its position but yields no URL (a file may hold fewer).
import type { AppContext } from '../../lib/context.js';
import { HOME_PAGE_ID_SQL, MAX_PATH_DEPTH } from './public.js';
import { PAGES_TABLE } from './schema.js';

/** The protocol's limit for one file. */
export const SITEMAP_MAX_URLS = 50_000;

export interface SitemapRange {
  /** First id of the file (inclusive); null when it holds no page (only `/`). */
  fromId: number | null;
  /** First id of the next file (exclusive); null for the last file. */
  toId: number | null;
  /** Whether the file starts with the home URL `/` (first file, no home page: `/` lists the root pages). */
  withHome: boolean;
  /** The page shown at `/` (listed as `/`, not at its own address), if any. */
  homeId: number | null;
}

export interface SitemapUrl {
  id: number;
  /** `/a/b`, or null when an ancestor is private (the page keeps its place, shows nothing). */
  url: string | null;
  updated_at: Date;
}

function fileStart(n: number, perFile: number): number {
  return n <= 1 ? 0 : (n - 1) * perFile - 1;
}

/** How many files the index lists: one at least (it holds `/`). */
export async function sitemapFileCount(ctx: AppContext, perFile = SITEMAP_MAX_URLS): Promise<number> {
  const counted = await ctx.db(PAGES_TABLE).where({ visibility: 'public' }).count({ n: '*' }).first();
  return Math.max(1, Math.ceil((Number(counted?.n ?? 0) + 1) / perFile));
}

/** The ids bounding file `n`, or null when there is no such file. */
export async function sitemapRange(ctx: AppContext, n: number, chosenHomeId: number | null, perFile = SITEMAP_MAX_URLS): Promise<SitemapRange | null> {
  if (!Number.isSafeInteger(n) || n < 1) return null;
  const idAt = `(SELECT id FROM ${PAGES_TABLE} WHERE visibility = 'public' ORDER BY id OFFSET ? LIMIT 1)`;
  const { rows } = await ctx.db.raw<{ rows: Array<{ from_id: number | null; to_id: number | null; home_id: number | null }> }>(
    `SELECT ${idAt} AS from_id, ${idAt} AS to_id, ${HOME_PAGE_ID_SQL} AS home_id`,
    [fileStart(n, perFile), fileStart(n + 1, perFile), chosenHomeId],
  );
  const { from_id: fromId, to_id: toId, home_id: homeId } = rows[0];
  const withHome = n === 1 && homeId === null;
  // Past the last page: only the first file exists (it holds `/` at least).
  if (fromId === null && n > 1) return null;
  return { fromId, toId, withHome, homeId };
}

/**
 * Up to `size` public pages of the range with ids above `afterId`, in id order, each
 * with its URL (one statement: each page walks up to the root through the
 * app_pages_tree_walk index; a private ancestor ends the walk and leaves `url` null, as
 * a page for members does, whose walk never starts: the sitemap is for everyone).
 */
export async function sitemapBatch(ctx: AppContext, range: SitemapRange, afterId: number, size: number): Promise<SitemapUrl[]> {
  if (range.fromId === null) return [];
  const { rows } = await ctx.db.raw<{ rows: SitemapUrl[] }>(
    `WITH RECURSIVE batch AS (
       SELECT id, parent_id, slug, updated_at, restricted FROM ${PAGES_TABLE}
       WHERE visibility = 'public' AND id >= ? AND id > ? AND (?::int IS NULL OR id < ?::int)
       ORDER BY id LIMIT ?
     ), up AS (
       SELECT b.id AS page_id, b.parent_id AS next_id, b.slug::text AS path, 1 AS depth FROM batch b WHERE NOT b.restricted
       UNION ALL
       SELECT up.page_id, p.parent_id, p.slug || '/' || up.path, up.depth + 1
       FROM up JOIN ${PAGES_TABLE} p ON p.id = up.next_id AND p.visibility = 'public'
       WHERE up.depth < ${MAX_PATH_DEPTH}
     )
     SELECT b.id, CASE WHEN u.path IS NOT NULL AND b.id = ?::int THEN '/' ELSE '/' || u.path END AS url, b.updated_at
     FROM batch b LEFT JOIN up u ON u.page_id = b.id AND u.next_id IS NULL
     ORDER BY b.id`,
    [range.fromId, afterId, range.toId, range.toId, size, range.homeId],
  );
  return rows;
}
