// Permissions per section of the tree (issue 26, item 4): a grant gives a role some pages
// permissions on a page and everything under it, in addition to the role's site-wide
// ones. Every statement on app_page_grants, and the one walk up the tree that says what
// a caller holds on a page through them.
import type { AppContext } from '../../lib/context.js';
import { inTransaction } from '../../lib/context.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { recordAudit, sourceOfActor, type Actor } from '../audit.js';
import { grantMessages } from './grant-messages.js';
import { pageMessages } from './messages.js';
import { PAGES_TABLE } from './schema.js';

/** What a grant may hold (the migration's CHECK says the same). */
const GRANTABLE_PERMISSIONS = ['pages.view', 'pages.manage', 'pages.manage_own', 'pages.publish', 'pages.publish_own', 'pages.review'] as const;

/** Every grant lets its role see the section (the tree, the editor) whatever else it holds. */
const IMPLIED = 'pages.view';

/** A walk up the tree never goes deeper than moves allow (they refuse cycles). */
const MAX_WALK = 1000;

export interface Grant {
  id: number;
  role_id: number;
  permissions: string[];
  /** null: granted on this page; else the ancestor it is granted on. */
  inherited_from: number | null;
}

/** A grant as the screen shows it: the role's label, and the section's title when inherited. */
export interface GrantView extends Grant {
  role_label: string;
  inherited_title: string | null;
}

// The caller's roles: the primary one and those assigned.
const USER_ROLES = `SELECT role_id FROM app_auth_users WHERE id = :user UNION SELECT role_id FROM app_auth_user_roles WHERE user_id = :user`;
/** The same with positional bindings: the user's id twice. */
export const USER_ROLES_BOUND = `SELECT role_id FROM app_auth_users WHERE id = ? UNION SELECT role_id FROM app_auth_user_roles WHERE user_id = ?`;

/**
 * The session user's permissions held through grants (ModuleRegistrar.scopedPermissions):
 * an expression over the user row `u`, read by the index on role_id.
 */
export const SCOPED_PERMISSIONS_SQL = `ARRAY(
  SELECT DISTINCT k FROM app_page_grants g, unnest(g.permissions || '${IMPLIED}'::text) AS k
  WHERE g.role_id = u.role_id OR g.role_id IN (SELECT role_id FROM app_auth_user_roles WHERE user_id = u.id)
)`;

/** Grants on the page and on its ancestors, the nearest first (one statement). */
export async function grantsOn(ctx: AppContext, pageId: number): Promise<GrantView[]> {
  const { rows } = await ctx.db.raw<{ rows: GrantView[] }>(
    `WITH RECURSIVE up AS (
       SELECT id, parent_id, title, 1 AS depth FROM ${PAGES_TABLE} WHERE id = ?
       UNION ALL
       SELECT a.id, a.parent_id, a.title, up.depth + 1 FROM up JOIN ${PAGES_TABLE} a ON a.id = up.parent_id WHERE up.depth < ${MAX_WALK}
     )
     SELECT g.id, g.role_id, g.permissions, CASE WHEN up.depth = 1 THEN NULL ELSE up.id END AS inherited_from,
            r.label AS role_label, CASE WHEN up.depth = 1 THEN NULL ELSE up.title END AS inherited_title
     FROM up JOIN app_page_grants g ON g.page_id = up.id JOIN app_auth_roles r ON r.id = g.role_id
     ORDER BY up.depth, r.label, g.id`,
    [pageId],
  );
  return rows;
}

/** The grant as the API answers it. */
export function grantJson(grant: Grant): Grant {
  return { id: grant.id, role_id: grant.role_id, permissions: grant.permissions, inherited_from: grant.inherited_from };
}

function checkPermissions(permissions: string[]): string[] {
  const unknown = permissions.filter((key) => !(GRANTABLE_PERMISSIONS as readonly string[]).includes(key));
  if (unknown.length || !permissions.length) {
    const message = permissions.length ? grantMessages.notGrantable(unknown.join(', ')) : grantMessages.nonePicked;
    throw new ValidationError(message, { code: 'invalid_permissions', details: [{ field: 'permissions', message }] });
  }
  return [...new Set(permissions)].sort();
}

/**
 * Gives the role these permissions on the page and its subtree: a role's grant on a
 * page is one row, so granting again replaces its list. Recorded in the audit log.
 */
export async function grantOnPage(ctx: AppContext, pageId: number, roleId: number, permissions: string[], actor: Actor | null): Promise<Grant> {
  const keys = checkPermissions(permissions);
  return inTransaction(ctx, async (tx) => {
    const page = await tx.db(PAGES_TABLE).where({ id: pageId }).first('id', 'title');
    if (!page) throw new NotFoundError(pageMessages.pageNotFound);
    const role = await tx.db('app_auth_roles').where({ id: roleId }).first('id', 'name', 'label');
    if (!role)
      throw new ValidationError(grantMessages.roleNotFound, { code: 'role_not_found', details: [{ field: 'role_id', message: grantMessages.roleNotFound }] });
    if (role.name === 'admin')
      throw new ValidationError(grantMessages.adminRole, { code: 'admin_role', details: [{ field: 'role_id', message: grantMessages.adminRole }] });
    const { rows } = await tx.db.raw<{ rows: Array<{ id: number }> }>(
      `INSERT INTO app_page_grants (page_id, role_id, permissions, created_at, created_by) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (page_id, role_id) DO UPDATE SET permissions = EXCLUDED.permissions
       RETURNING id`,
      [pageId, roleId, keys, ctx.clock.now(), actor?.id ?? null],
    );
    await recordAudit(tx, {
      ...sourceOfActor(actor),
      action: 'page.grant_added',
      target: { type: 'page', id: page.id, label: page.title },
      details: { grant_id: rows[0].id, role_id: role.id, role: role.label, permissions: keys },
    });
    return { id: rows[0].id, role_id: roleId, permissions: keys, inherited_from: null };
  });
}

/** Withdraws a grant made on this page (a grant on an ancestor is withdrawn there); recorded in the audit log. */
export async function withdrawGrant(ctx: AppContext, pageId: number, grantId: number, actor: Actor | null): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const { rows } = await tx.db.raw<{ rows: Array<{ role_id: number; permissions: string[]; title: string; role_label: string }> }>(
      `DELETE FROM app_page_grants g USING ${PAGES_TABLE} p, app_auth_roles r
       WHERE g.id = ? AND g.page_id = ? AND p.id = g.page_id AND r.id = g.role_id
       RETURNING g.role_id, g.permissions, p.title, r.label AS role_label`,
      [grantId, pageId],
    );
    if (!rows.length) throw new NotFoundError(grantMessages.grantNotFound);
    const [grant] = rows;
    await recordAudit(tx, {
      ...sourceOfActor(actor),
      action: 'page.grant_removed',
      target: { type: 'page', id: pageId, label: grant.title },
      details: { grant_id: grantId, role_id: grant.role_id, role: grant.role_label, permissions: grant.permissions },
    });
  });
}

/** What a user holds on a page through grants, with the page's author and parent. */
export interface SectionFacts {
  id: number;
  parent_id: number | null;
  author_id: number | null;
  /** Held on the page (granted on it or on an ancestor). */
  granted: string[];
  /** Held on its parent (granted on an ancestor of the page, not on the page itself). */
  parent_granted: string[];
}

/**
 * What the user holds through its roles' grants on each of these pages (one statement,
 * a walk up from each page by the tree's index); unknown pages are left out.
 */
export async function sectionFacts(ctx: AppContext, userId: number, pageIds: number[]): Promise<Map<number, SectionFacts>> {
  const { rows } = await ctx.db.raw<{ rows: SectionFacts[] }>(
    `WITH RECURSIVE roles AS (${USER_ROLES}),
     up AS (
       SELECT p.id AS target, p.id, p.parent_id, 1 AS depth FROM ${PAGES_TABLE} p WHERE p.id = ANY(:ids::int[])
       UNION ALL
       SELECT up.target, a.id, a.parent_id, up.depth + 1 FROM up JOIN ${PAGES_TABLE} a ON a.id = up.parent_id WHERE up.depth < ${MAX_WALK}
     ),
     held AS (
       SELECT up.target, up.depth, k FROM up JOIN app_page_grants g ON g.page_id = up.id
       JOIN roles ON roles.role_id = g.role_id, unnest(g.permissions || '${IMPLIED}'::text) AS k
     )
     SELECT t.id, t.parent_id, t.author_id,
            ARRAY(SELECT DISTINCT k FROM held WHERE held.target = t.id ORDER BY k) AS granted,
            ARRAY(SELECT DISTINCT k FROM held WHERE held.target = t.id AND held.depth > 1 ORDER BY k) AS parent_granted
     FROM ${PAGES_TABLE} t WHERE t.id = ANY(:ids::int[])`,
    { user: userId, ids: pageIds },
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * A recursive WITH clause naming every page in the user's sections (`section_pages(id)`),
 * a walk down from each page granted to one of its roles; `writable`: only the sections
 * where it may write. Its bindings are the user's id, twice (positional).
 */
export function sectionPagesCte(writable = false): string {
  const filter = writable ? ` AND g.permissions && ARRAY['pages.manage', 'pages.manage_own']::text[]` : '';
  return `section_pages(id) AS (
    SELECT g.page_id FROM app_page_grants g
    WHERE g.role_id IN (${USER_ROLES_BOUND})${filter}
    UNION
    SELECT c.id FROM ${PAGES_TABLE} c JOIN section_pages s ON c.parent_id = s.id
  )`;
}

/** What the grants screen offers: the roles a grant may go to (every one but admin), and the grantable permissions' labels. */
export async function grantChoices(
  ctx: AppContext,
): Promise<{ roles: Array<{ id: number; label: string }>; permissions: Array<{ key: string; label: string }> }> {
  const [roles, permissions] = await Promise.all([
    ctx
      .db('app_auth_roles')
      .whereNot({ name: 'admin' })
      .orderBy([{ column: 'label' }, { column: 'id' }])
      .select<Array<{ id: number; label: string }>>('id', 'label'),
    ctx
      .db('app_auth_permissions')
      .whereIn('key', [...GRANTABLE_PERMISSIONS])
      .orderBy([{ column: 'position' }, { column: 'key' }])
      .select<Array<{ key: string; label: string }>>('key', 'label'),
  ]);
  return { roles, permissions };
}
