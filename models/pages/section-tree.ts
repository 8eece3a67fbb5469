// The admin tree's reads for a user whose page permissions come only from grants
// (issue 26, item 4): its sections take the place of the root pages, and its searches
// and parent picker look inside them only. Each read is one statement, as the whole
// tree's are (models/pages/admin-tree.ts).
import type { AppContext } from '../../lib/context.js';
import { CHILD_COUNT, TREE_COLUMNS, placesOf, searchFilter, type PagePlace, type PageSearch, type TreeRow } from './admin-tree.js';
import { sectionPagesCte, USER_ROLES_BOUND } from './grants.js';
import { PAGES_TABLE } from './schema.js';

/** The parent search looks at this many matches (by title) before leaving out the page's own subtree. */
const CANDIDATE_SCAN = 200;
const MAX_WALK = 1000;

export interface SectionRootRow extends TreeRow {
  /** `/a/b/c`. */
  path: string;
  /** The page and every ancestor are public. */
  public_branch: boolean;
}

/**
 * The top pages of the user's sections (granted to one of its roles, nothing granted
 * above them) with the tree's columns and their paths, in the tree's order.
 */
export async function sectionRootRows(ctx: AppContext, userId: number): Promise<SectionRootRow[]> {
  const { rows } = await ctx.db.raw<{ rows: SectionRootRow[] }>(
    `WITH RECURSIVE roles AS (SELECT role_id FROM app_auth_users WHERE id = ? UNION SELECT role_id FROM app_auth_user_roles WHERE user_id = ?),
     granted AS (SELECT DISTINCT g.page_id AS id FROM app_page_grants g JOIN roles ON roles.role_id = g.role_id),
     up AS (
       SELECT granted.id AS target, p.parent_id AS next, p.slug::text AS path, p.visibility = 'public' AS public_branch, false AS covered, 1 AS depth
       FROM granted JOIN ${PAGES_TABLE} p ON p.id = granted.id
       UNION ALL
       SELECT up.target, a.parent_id, a.slug || '/' || up.path, up.public_branch AND a.visibility = 'public',
              up.covered OR a.id IN (SELECT id FROM granted), up.depth + 1
       FROM up JOIN ${PAGES_TABLE} a ON a.id = up.next WHERE up.depth < ${MAX_WALK}
     )
     SELECT ${TREE_COLUMNS}, ${CHILD_COUNT}, '/' || up.path AS path, up.public_branch
     FROM up JOIN ${PAGES_TABLE} p ON p.id = up.target
     WHERE up.next IS NULL AND NOT up.covered
     ORDER BY p.title, p.id`,
    [userId, userId],
  );
  return rows;
}

/** How many of the site's matches, in title order, are checked one by one before walking down the sections instead. */
const SEARCH_CANDIDATES = 2000;

/**
 * A search of the tree screen inside the user's sections: one page of matches in title
 * order, in one statement that takes the cheaper of two ways. First the site's matches
 * in title order (the whole tree's search and its indexes), each kept when a walk up
 * from it meets a granted page, stopping once the page of results is full: a large
 * section fills it from the first candidates. When the first 2,000 matches do not fill
 * it (a small section, or a late page of results), the sections are walked down instead,
 * carrying what the filter reads, and only their pages are matched.
 */
export async function findSectionPages(
  ctx: AppContext,
  userId: number,
  search: PageSearch,
  limit: number,
  offset = 0,
): Promise<{ rows: TreeRow[]; more: boolean }> {
  const filter = searchFilter(search);
  const need = offset + limit + 1;
  const { rows } = await ctx.db.raw<{ rows: TreeRow[] }>(
    `WITH RECURSIVE candidates AS MATERIALIZED (
       SELECT p.id, p.parent_id, row_number() OVER (ORDER BY p.title, p.id) AS n
       FROM (SELECT p.id, p.parent_id, p.title FROM ${PAGES_TABLE} p ${filter.sql} ORDER BY p.title, p.id LIMIT ${SEARCH_CANDIDATES}) p
     ),
     -- Read in the candidates' order and stopped at :need: no walk up past the page of results.
     found AS MATERIALIZED (
       SELECT c.id, c.n FROM candidates c
       WHERE EXISTS (
         WITH RECURSIVE up(id, parent_id, depth) AS (
           SELECT c.id, c.parent_id, 1
           UNION ALL
           SELECT a.id, a.parent_id, up.depth + 1 FROM up JOIN ${PAGES_TABLE} a ON a.id = up.parent_id WHERE up.depth < ${MAX_WALK}
         )
         SELECT 1 FROM up JOIN app_page_grants g ON g.page_id = up.id WHERE g.role_id IN (${USER_ROLES_BOUND})
       )
       LIMIT ?
     ),
     -- Enough found, or every match of the site was a candidate: the first way answered.
     answered AS (SELECT (SELECT count(*) FROM found) >= ? OR (SELECT count(*) FROM candidates) < ${SEARCH_CANDIDATES} AS yes),
     section(id, title, slug, visibility) AS (
       SELECT p.id, p.title, p.slug, p.visibility FROM app_page_grants g JOIN ${PAGES_TABLE} p ON p.id = g.page_id
       WHERE g.role_id IN (${USER_ROLES_BOUND}) AND NOT (SELECT yes FROM answered)
       UNION
       SELECT c.id, c.title, c.slug, c.visibility FROM ${PAGES_TABLE} c JOIN section s ON c.parent_id = s.id
     ),
     hits AS (
       (SELECT f.id FROM found f WHERE (SELECT yes FROM answered) ORDER BY f.n OFFSET ?)
       UNION ALL
       (SELECT p.id FROM section p ${filter.sql} ORDER BY p.title, p.id LIMIT ? OFFSET ?)
     )
     SELECT ${TREE_COLUMNS}, ${CHILD_COUNT} FROM hits JOIN ${PAGES_TABLE} p ON p.id = hits.id ORDER BY p.title, p.id`,
    // In the order of the placeholders: the candidates' filter, the walk up's roles, the
    // two counts, the walk down's roles, then the two ways' offsets, filter and limit.
    [...filter.bindings, userId, userId, need, need, userId, userId, offset, ...filter.bindings, limit + 1, offset],
  );
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

/**
 * The parent picker inside the sections where the user may write: the search's matches,
 * without `excludeId` and its descendants, each with its path (two statements, as the
 * whole tree's picker).
 */
export async function sectionParentCandidates(
  ctx: AppContext,
  userId: number,
  q: string,
  excludeId: number | null,
  limit: number,
): Promise<{ items: PagePlace[]; more: boolean }> {
  const filter = searchFilter({ q });
  if (!filter.sql) return { items: [], more: false };
  const { rows } = await ctx.db.raw<{ rows: Array<{ id: number }> }>(
    `WITH RECURSIVE ${sectionPagesCte(true)}
     SELECT p.id FROM ${PAGES_TABLE} p ${filter.sql} AND p.id IN (SELECT id FROM section_pages) ORDER BY p.title, p.id LIMIT ?`,
    [userId, userId, ...filter.bindings, CANDIDATE_SCAN],
  );
  const places = await placesOf(
    ctx,
    rows.map((row) => row.id),
  );
  const allowed = rows
    .map((row) => places.get(row.id))
    .filter((place): place is PagePlace => place !== undefined && place.id !== excludeId && !place.ancestors.includes(excludeId ?? 0));
  return { items: allowed.slice(0, limit), more: allowed.length > limit || rows.length === CANDIDATE_SCAN };
}
