// The module's server functions (SPEC B1, `@app/module-pages/public`): in-process reads
// of public pages, used by the public site and the public API (the sitemap reads its
// own batches, sitemap.ts). They check no permission and filter on visibility only:
// never expose them without access control.
//
// Visibility of a branch: a page is public to these functions only when it and every
// ancestor are public (a private page hides its sub-pages; see docs/decisions.md).
// Access (pages for members, models/pages/access.ts): a restricted page is shown only
// to a reader its rules and its ancestors' let in; without a reader, never.
// Statement counts are fixed whatever the depth: one recursive statement resolves a
// path (plus one for media when the page has image blocks); a child list costs one
// statement for the parent's base path and one for the children.
import type { AppContext } from '../../lib/context.js';
import { ownRuleSql, readerBindings, readerMayRead, type PageReader } from './access.js';
import { attachMedia } from './media.js';
import type { Page, PageSummary } from './pages.js';
import { PAGES_TABLE } from './schema.js';
import { SLUG_PATTERN, SLUG_MAX_LENGTH } from './slugs.js';

/** Deeper paths are not resolved at all (no page can be that deep in practice). */
export const MAX_PATH_DEPTH = 64;
export const HOME_SLUG = 'accueil';

/**
 * SQL for the id of the page shown at `/` (one value, NULL when none): the chosen page
 * (the site's settings) while it and every ancestor are public, else the public root
 * page `accueil` — the same rule as the home route's (migration
 * pages/20261127000200_pages_home_page_id). Its one binding is the chosen id.
 */
export const HOME_PAGE_ID_SQL = 'app_pages_home_id(?::int)';

export interface PublicPageSummary extends PageSummary {
  seo: Record<string, unknown>;
  url: string;
}

export interface ResolvedPage {
  page: Page;
  /** Titles of the ancestors, from the root down, for breadcrumbs. */
  ancestorTitles: string[];
  /** Ids of the ancestors, from the root down (what a cached answer depends on). */
  ancestorIds: number[];
  segments: string[];
  /** The page or an ancestor is for members (models/pages/access.ts): never a shared answer. Unset: a preview's. */
  restricted?: boolean;
}

const PUBLIC_COLUMNS =
  'p.id, p.parent_id, p.title, p.slug, p.template, p.blocks, p.seo, p.visibility, p.access, p.access_roles, p.author_id, p.updated_by, p.created_at, p.updated_at';

/** Segments that can name a page: 1..64 valid slugs. */
export function isResolvablePath(segments: string[]): boolean {
  return (
    segments.length > 0 && segments.length <= MAX_PATH_DEPTH && segments.every((segment) => segment.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(segment))
  );
}

// One statement whatever the depth (the benchmark baseline runs it too): descend from
// the root one segment per step, each
// step one probe of the (COALESCE(parent_id, 0), slug) unique index.
export const RESOLVE_SQL = `
  WITH RECURSIVE chain AS (
    SELECT p.id, 1 AS depth, p.title::text AS title, ARRAY[]::text[] AS titles, ARRAY[]::integer[] AS ids
    FROM ${PAGES_TABLE} p
    WHERE COALESCE(p.parent_id, 0) = 0 AND p.slug = (?::text[])[1] AND p.visibility = 'public'
    UNION ALL
    SELECT p.id, c.depth + 1, p.title::text, c.titles || c.title, c.ids || c.id
    FROM chain c
    JOIN ${PAGES_TABLE} p ON COALESCE(p.parent_id, 0) = c.id AND p.slug = (?::text[])[c.depth + 1] AND p.visibility = 'public'
    WHERE c.depth < ?
  )
  SELECT ${PUBLIC_COLUMNS}, p.restricted, c.titles AS ancestor_titles, c.ids AS ancestor_ids
  FROM chain c JOIN ${PAGES_TABLE} p ON p.id = c.id
  WHERE c.depth = ?`;

/** The published page at this chain of slugs, without media (one statement). */
export async function resolvePublicPage(ctx: AppContext, segments: string[]): Promise<ResolvedPage | null> {
  if (!isResolvablePath(segments)) return null;
  const { rows } = await ctx.db.raw<{ rows: Array<Page & { restricted: boolean; ancestor_titles: string[]; ancestor_ids: number[] }> }>(RESOLVE_SQL, [
    segments,
    segments,
    segments.length,
    segments.length,
  ]);
  if (!rows.length) return null;
  const { ancestor_titles: ancestorTitles, ancestor_ids: ancestorIds, restricted, ...page } = rows[0];
  return { page, ancestorTitles, ancestorIds, segments, restricted };
}

/**
 * SPEC B1: the public page at this chain of slugs, or null when a segment does not
 * match or the page (or one of its ancestors) is not public, or is for members and
 * `reader` (null: an anonymous visitor) may not read it. The row has its blocks,
 * image blocks enriched with the media's url, alt and caption; it has no `url`.
 */
export async function getPublishedPageBySegments(ctx: AppContext, segments: string[], reader: PageReader | null = null): Promise<Page | null> {
  const resolved = await resolvePublicPage(ctx, segments);
  if (!resolved || (resolved.restricted && !(await readerMayRead(ctx, resolved.page.id, reader)))) return null;
  resolved.page.blocks = await attachMedia(ctx, resolved.page.blocks);
  return resolved.page;
}

/**
 * The public base path of a page and the ids of its chain from the root down (the page
 * last), or null; `restricted` when the page or an ancestor is for members (read from
 * the page's own row: the walk up stays on the app_pages_tree_walk index).
 */
export async function publicPlaceOf(ctx: AppContext, pageId: number): Promise<{ path: string; ids: number[]; restricted: boolean } | null> {
  const { rows } = await ctx.db.raw<{
    rows: Array<{ path: string | null; ids: number[] | null; visible: boolean | null; restricted: boolean | null; n: number }>;
  }>(
    `WITH RECURSIVE up AS (
       SELECT id, parent_id, slug, visibility, 1 AS depth FROM ${PAGES_TABLE} WHERE id = ?
       UNION ALL
       SELECT p.id, p.parent_id, p.slug, p.visibility, up.depth + 1
       FROM ${PAGES_TABLE} p JOIN up ON p.id = up.parent_id
       WHERE up.depth < ${MAX_PATH_DEPTH * 4}
     )
     SELECT string_agg(slug, '/' ORDER BY depth DESC) AS path, array_agg(id ORDER BY depth DESC) AS ids,
            bool_and(visibility = 'public') AS visible, count(*) AS n,
            (SELECT restricted FROM ${PAGES_TABLE} WHERE id = ?) AS restricted
     FROM up`,
    [pageId, pageId],
  );
  const row = rows[0];
  return row && Number(row.n) > 0 && row.visible && row.path !== null
    ? { path: `/${row.path}`, ids: row.ids ?? [], restricted: row.restricted === true }
    : null;
}

export interface ChildListOptions {
  limit?: number;
  offset?: number;
  /**
   * Who reads the list (null or absent: an anonymous visitor, and every shared answer):
   * a child for members is listed only to a reader it lets in. The parent's own chain
   * is the caller's to check.
   */
  reader?: PageReader | null;
}

/** The public children under a known base path (`''` for the root), with the total. */
export async function listPublicChildrenAt(
  ctx: AppContext,
  parentId: number | null,
  basePath: string,
  options: ChildListOptions = {},
): Promise<{ items: PublicPageSummary[]; total: number }> {
  const { limit = 200, offset = 0, reader = null } = options;
  const { rows } = await ctx.db.raw<{ rows: Array<PublicPageSummary & { total: number }> }>(
    `SELECT p.id, p.parent_id, p.title, p.slug, p.template, p.seo, p.visibility, p.author_id, p.updated_by,
            p.created_at, p.updated_at, ?::text || '/' || p.slug AS url, count(*) OVER () AS total
     FROM ${PAGES_TABLE} p
     WHERE COALESCE(p.parent_id, 0) = ? AND p.visibility = 'public' AND ${ownRuleSql('p', reader)}
     ORDER BY p.title, p.id
     LIMIT ? OFFSET ?`,
    [basePath, parentId ?? 0, ...readerBindings(reader), limit, offset],
  );
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && offset > 0) {
    const counted = await ctx
      .db(`${PAGES_TABLE} as p`)
      .whereRaw('COALESCE(p.parent_id, 0) = ?', [parentId ?? 0])
      .andWhere('p.visibility', 'public')
      .andWhereRaw(ownRuleSql('p', reader), readerBindings(reader))
      .count({ n: '*' });
    total = Number(counted[0].n);
  }
  return { items: rows.map(({ total: _total, ...row }) => row), total };
}

/**
 * SPEC B1: the public children of a page (null for root pages), ordered by title, each
 * with its `url`; the parent's base path is resolved once for the whole list; no blocks.
 * A missing or non-public parent has no public children, nor has a parent for members
 * that `options.reader` (absent: an anonymous visitor) may not read.
 */
export async function listPublicChildPages(ctx: AppContext, parentId: number | null, options: ChildListOptions = {}): Promise<PublicPageSummary[]> {
  let basePath = '';
  if (parentId !== null) {
    const place = await publicPlaceOf(ctx, parentId);
    if (place === null || (place.restricted && !(await readerMayRead(ctx, parentId, options.reader ?? null)))) return [];
    basePath = place.path;
  }
  return (await listPublicChildrenAt(ctx, parentId, basePath, options)).items;
}
