// Old public paths of pages (migration pages/20261125000200_pages_redirects): the
// triggers record them when a page moves or is deleted; this model reads them for a
// missed public lookup, and lists, adds and removes them for the administration.
// A redirect stores the page, never the target path: the target is the page's current
// path, computed by the same statement that finds the row.
import { inTransaction, type AppContext } from '../../lib/context.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { recordAudit, sourceOfActor, type Actor, type AuditTarget } from '../audit.js';
import { isResolvablePath } from './public.js';
import { fieldError } from './rules.js';
import { PAGES_TABLE } from './schema.js';
import { isReservedRootSlug } from './slugs.js';
import { redirectMessages } from './messages.js';

const REDIRECTS_TABLE = 'app_page_redirects';
const WALK_LIMIT = 256;

type RedirectKind = 'manual' | 'automatic';

export interface Redirect {
  id: number;
  path: string;
  page_id: number | null;
  kind: RedirectKind;
  created_by: number | null;
  created_at: Date;
  /** The page it leads to, at its current path; null for a deleted page (410). */
  target: { id: number; title: string; path: string } | null;
}

/** What a missed public lookup learns: the page's current public path, or that it is gone. */
export type RedirectLookup = { gone: true } | { gone: false; path: string; ids: number[] };

// One statement: the row by its unique path, then a walk up from its page (the
// app_pages_tree_walk index) for the current path, the chain and its visibility.
const LOOKUP_SQL = `
  WITH RECURSIVE hit AS (
    SELECT page_id FROM ${REDIRECTS_TABLE} WHERE path = ?
  ), up AS (
    SELECT p.id, p.parent_id, p.slug, p.visibility, 1 AS depth FROM ${PAGES_TABLE} p JOIN hit ON p.id = hit.page_id
    UNION ALL
    SELECT p.id, p.parent_id, p.slug, p.visibility, up.depth + 1 FROM ${PAGES_TABLE} p JOIN up ON p.id = up.parent_id WHERE up.depth < ${WALK_LIMIT}
  )
  SELECT hit.page_id,
         (SELECT '/' || string_agg(slug, '/' ORDER BY depth DESC) FROM up) AS path,
         (SELECT array_agg(id ORDER BY depth DESC) FROM up) AS ids,
         (SELECT bool_and(visibility = 'public') FROM up) AS visible
  FROM hit`;

/**
 * The redirect recorded at `path` (`/a/b`): the target's current public path and chain,
 * or `gone` for a deleted page; null when there is none, or when the page (or one of
 * its ancestors) is private: a redirect never reveals a private page.
 */
export async function findRedirect(ctx: AppContext, path: string): Promise<RedirectLookup | null> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ page_id: number | null; path: string | null; ids: number[] | null; visible: boolean | null }> }>(
    LOOKUP_SQL,
    [path],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.page_id === null) return { gone: true };
  return row.visible && row.path !== null ? { gone: false, path: row.path, ids: row.ids ?? [] } : null;
}

/** `a/b`, `/a/b/` → `/a/b`; anything but slugs, or a root the site keeps, is a 400 on `field`. */
function normalizeRedirectPath(value: string, field = 'from'): { path: string; segments: string[] } {
  const segments = value
    .trim()
    .replace(/^\/+|\/+$/g, '')
    .split('/');
  if (!isResolvablePath(segments)) throw fieldError(field, redirectMessages.pathInvalid);
  if (isReservedRootSlug(segments[0])) throw fieldError(field, redirectMessages.pathReserved);
  return { path: '/' + segments.join('/'), segments };
}

interface RedirectListRow extends Omit<Redirect, 'target'> {
  page_title: string | null;
  page_path: string | null;
  total?: number;
}

function toRedirect({ page_title, page_path, total: _total, ...row }: RedirectListRow): Redirect {
  return {
    ...row,
    target: row.page_id !== null && page_title !== null ? { id: row.page_id, title: page_title, path: page_path ?? '' } : null,
  };
}

/** Escapes LIKE's wildcards so a filter matches itself. */
function likeText(value: string): string {
  return value.replace(/[\\%_]/g, (character) => '\\' + character);
}

export interface ListRedirectsOptions {
  /** Keeps the paths that contain this text. */
  path?: string;
  limit?: number;
  offset?: number;
}

/** Newest first, with the total; the targets' paths are computed for the rows shown only. */
export async function listRedirects(ctx: AppContext, options: ListRedirectsOptions = {}): Promise<{ items: Redirect[]; total: number }> {
  const { limit = 50, offset = 0 } = options;
  const filter = options.path?.trim().toLowerCase() ?? '';
  const { rows } = await ctx.db.raw<{ rows: RedirectListRow[] }>(
    `SELECT r.*, p.title AS page_title, app_pages_path_of(r.page_id) AS page_path
     FROM (
       SELECT id, path, page_id, kind, created_by, created_at, count(*) OVER () AS total
       FROM ${REDIRECTS_TABLE}
       WHERE path LIKE ?
       ORDER BY id DESC
       LIMIT ? OFFSET ?
     ) r
     LEFT JOIN ${PAGES_TABLE} p ON p.id = r.page_id
     ORDER BY r.id DESC`,
    [`%${likeText(filter)}%`, limit, offset],
  );
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && offset > 0) {
    const counted = await ctx
      .db(REDIRECTS_TABLE)
      .whereRaw('path LIKE ?', [`%${likeText(filter)}%`])
      .count({ n: '*' });
    total = Number(counted[0].n);
  }
  return { items: rows.map(toRedirect), total };
}

async function getRedirect(ctx: AppContext, id: number): Promise<Redirect> {
  const { rows } = await ctx.db.raw<{ rows: RedirectListRow[] }>(
    `SELECT r.id, r.path, r.page_id, r.kind, r.created_by, r.created_at, p.title AS page_title, app_pages_path_of(r.page_id) AS page_path
     FROM ${REDIRECTS_TABLE} r LEFT JOIN ${PAGES_TABLE} p ON p.id = r.page_id
     WHERE r.id = ?`,
    [id],
  );
  if (!rows[0]) throw new NotFoundError(redirectMessages.notFound);
  return toRedirect(rows[0]);
}

/** The page at these slugs, whatever its visibility (one statement). */
async function pageAt(ctx: AppContext, segments: string[]): Promise<number | null> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ id: number }> }>(
    `WITH RECURSIVE chain AS (
       SELECT id, 1 AS depth FROM ${PAGES_TABLE} WHERE COALESCE(parent_id, 0) = 0 AND slug = (?::text[])[1]
       UNION ALL
       SELECT p.id, c.depth + 1 FROM chain c
       JOIN ${PAGES_TABLE} p ON COALESCE(p.parent_id, 0) = c.id AND p.slug = (?::text[])[c.depth + 1]
       WHERE c.depth < ?
     ) SELECT id FROM chain WHERE depth = ?`,
    [segments, segments, segments.length, segments.length],
  );
  return rows[0]?.id ?? null;
}

/**
 * The page a form names by its number or by its current path (`/a/b`, any visibility);
 * a 400 on `field` when there is none.
 */
export async function pageIdFromForm(ctx: AppContext, value: string, field = 'page_id'): Promise<number> {
  const trimmed = value.trim();
  if (/^[1-9][0-9]{0,9}$/.test(trimmed) && Number(trimmed) <= 2_147_483_647) return Number(trimmed);
  const { segments } = normalizeRedirectPath(trimmed, field);
  const id = await pageAt(ctx, segments);
  if (id === null) throw fieldError(field, redirectMessages.pageMissing);
  return id;
}

function redirectTarget(redirect: { id: number; path: string }): AuditTarget {
  return { type: 'redirect', id: redirect.id, label: redirect.path };
}

export interface RedirectInput {
  from: string;
  page_id: number;
}

/**
 * A manual redirect from `from` to a page. Refused (409) when a page lives at `from`
 * (it would never be reached) or when `from` already leads somewhere; the tombstone of
 * a deleted page (410) is replaced. A page created at `from` later takes it over.
 */
export async function createRedirect(ctx: AppContext, input: RedirectInput, actor: Actor | null = null): Promise<Redirect> {
  const { path, segments } = normalizeRedirectPath(input.from);
  return inTransaction(ctx, async (tx) => {
    // FOR KEY SHARE: the page cannot be deleted before this row commits.
    const page = await tx.db(PAGES_TABLE).where({ id: input.page_id }).forKeyShare().first('id');
    if (!page) throw fieldError('page_id', redirectMessages.pageMissing);
    if ((await pageAt(tx, segments)) !== null) throw new ConflictError(redirectMessages.pathInUse, { code: 'path_in_use' });
    const { rows } = await tx.db.raw<{ rows: Array<{ id: number }> }>(
      `INSERT INTO ${REDIRECTS_TABLE} (path, page_id, kind, created_by, created_at) VALUES (?, ?, 'manual', ?, ?)
       ON CONFLICT (path) DO UPDATE
         SET page_id = EXCLUDED.page_id, kind = 'manual', created_by = EXCLUDED.created_by, created_at = EXCLUDED.created_at
         WHERE ${REDIRECTS_TABLE}.page_id IS NULL
       RETURNING id`,
      [path, input.page_id, actor?.id ?? null, tx.clock.now()],
    );
    if (!rows[0]) throw new ConflictError(redirectMessages.alreadyRedirected, { code: 'already_redirected' });
    const redirect = { id: rows[0].id, path };
    await recordAudit(tx, { ...sourceOfActor(actor), action: 'redirect.created', target: redirectTarget(redirect), details: { page_id: input.page_id } });
    return getRedirect(tx, redirect.id);
  });
}

/** Removes a redirect: its path answers 404 again (or shows a page created there). */
export async function deleteRedirect(ctx: AppContext, id: number, actor: Actor | null = null): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const [removed] = await tx.db(REDIRECTS_TABLE).where({ id }).delete().returning(['id', 'path', 'page_id']);
    if (!removed) throw new NotFoundError(redirectMessages.notFound);
    await recordAudit(tx, { ...sourceOfActor(actor), action: 'redirect.deleted', target: redirectTarget(removed), details: { page_id: removed.page_id } });
  });
}
