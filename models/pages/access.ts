// Pages for members (issue 26, item 6): who may read a page beside its visibility.
// `access` is `everyone` (the default), `members` (any signed-in account) or `roles`
// (an account holding one of `access_roles`); the rule of a page holds for its whole
// subtree. `restricted` (kept by the triggers of migration pages/20261128000300) says
// whether a page or one of its ancestors asks more than `everyone`: the shared reads
// (cache, lists, menus, sitemap, search) leave such pages out by that flag alone, and
// only then is the reader asked for (one chain walk, after the session is read).
import { inTransaction, type AppContext } from '../../lib/context.js';
import { NotFoundError } from '../../lib/errors.js';
import { recordAudit, sourceOfActor, type Actor } from '../audit.js';
import { accessMessages, pageMessages } from './messages.js';
import { fieldError } from './rules.js';
import { PAGES_TABLE } from './schema.js';
import { bumpTreeVersion } from './tree-state.js';

export type PageAccess = 'everyone' | 'members' | 'roles';

export const PAGE_ACCESSES: readonly PageAccess[] = ['everyone', 'members', 'roles'];

/** A page's reading rule, as its JSON and the bodies carry it. */
export interface PageAccessRule {
  access: PageAccess;
  access_roles: number[];
}

/** A signed-in reader: its roles (names, as the session user has them) and whether it reads every page. */
export interface PageReader {
  roles: string[];
  /** Holders of pages.view read every page on the site, as they do in the administration. */
  seesAll: boolean;
}

/** The reader a session user is, or null for an anonymous visitor. */
export function readerOf(user: { roles: string[]; permissions: string[] } | undefined | null): PageReader | null {
  return user ? { roles: user.roles, seesAll: user.permissions.includes('pages.view') } : null;
}

/**
 * SQL: the page row `p` lets `reader` in by its own rule (its ancestors are checked by
 * the caller). Anonymous: only an unrestricted page. Binds `readerBindings(reader)`.
 */
export function ownRuleSql(alias: string, reader: PageReader | null): string {
  if (!reader) return `NOT ${alias}.restricted`;
  return `(?::boolean OR ${alias}.access <> 'roles' OR EXISTS (SELECT 1 FROM app_auth_roles ar WHERE ar.id = ANY(${alias}.access_roles) AND ar.name = ANY(?::text[])))`;
}

export function readerBindings(reader: PageReader | null): Array<boolean | string[]> {
  return reader ? [reader.seesAll, reader.roles] : [];
}

/**
 * Whether `reader` may read the page, its ancestors' rules included (one statement; none
 * for an anonymous visitor, whom every restricted page refuses, nor for a reader who
 * sees all). Called only for a page known to be restricted.
 */
export async function readerMayRead(ctx: AppContext, pageId: number, reader: PageReader | null): Promise<boolean> {
  if (!reader) return false;
  if (reader.seesAll) return true;
  const { rows } = await ctx.db.raw<{ rows: Array<{ allowed: boolean | null }> }>(
    `WITH RECURSIVE up AS (
       SELECT id, parent_id, access, access_roles, 1 AS depth FROM ${PAGES_TABLE} WHERE id = ?
       UNION ALL
       SELECT p.id, p.parent_id, p.access, p.access_roles, up.depth + 1 FROM ${PAGES_TABLE} p JOIN up ON p.id = up.parent_id WHERE up.depth < 256
     )
     SELECT bool_and(${ownRuleSql('up', reader)}) AS allowed FROM up`,
    [pageId, ...readerBindings(reader)],
  );
  return rows[0]?.allowed === true;
}

/** Checks a rule: `roles` names one existing role at least; the others carry none. */
async function checkedRule(tx: AppContext, rule: PageAccessRule): Promise<PageAccessRule> {
  if (rule.access !== 'roles') return { access: rule.access, access_roles: [] };
  const wanted = [...new Set(rule.access_roles)];
  if (!wanted.length) throw fieldError('access_roles', accessMessages.rolesRequired);
  const found = await tx.db('app_auth_roles').whereIn('id', wanted).pluck('id');
  if (found.length !== wanted.length) throw fieldError('access_roles', accessMessages.roleNotFound);
  return { access: 'roles', access_roles: wanted.sort((a, b) => a - b) };
}

/** Checks a rule before a page is written with it (a 400 names the field; nothing written). */
export async function checkAccessRule(ctx: AppContext, rule: PageAccessRule): Promise<PageAccessRule> {
  return checkedRule(ctx, rule);
}

/**
 * Sets a page's reading rule, at once (it is not part of drafts: a restriction must not
 * wait for a publication). Recorded in the audit log when it changes; the tree's version
 * moves (the sitemap shows the page or not).
 */
export async function setPageAccess(ctx: AppContext, pageId: number, given: PageAccessRule, actor: Actor | null): Promise<PageAccessRule> {
  return inTransaction(ctx, async (tx) => {
    const rule = await checkedRule(tx, given);
    const page = await tx
      .db(PAGES_TABLE)
      .where({ id: pageId })
      .forUpdate()
      .first<{ title: string; access: PageAccess; access_roles: number[] } | undefined>(['title', 'access', 'access_roles']);
    if (!page) throw new NotFoundError(pageMessages.pageNotFound);
    if (page.access === rule.access && sameIds(page.access_roles, rule.access_roles)) return rule;
    await tx.db(PAGES_TABLE).where({ id: pageId }).update({ access: rule.access, access_roles: rule.access_roles });
    await bumpTreeVersion(tx);
    await recordAudit(tx, {
      ...sourceOfActor(actor),
      action: 'page.access_changed',
      target: { type: 'page', id: pageId, label: page.title },
      details: { access: rule.access, access_roles: rule.access_roles, before: { access: page.access, access_roles: page.access_roles } },
    });
    return rule;
  });
}

function sameIds(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((id, index) => id === b[index]);
}

/** The roles a page may be reserved to, by their labels (the editor's «Accès»). */
export async function roleChoices(ctx: AppContext): Promise<Array<{ id: number; label: string }>> {
  return ctx
    .db('app_auth_roles')
    .orderBy([{ column: 'label' }, { column: 'id' }])
    .select('id', 'label');
}
