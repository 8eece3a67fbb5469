// Writing a page together with its reading rule (pages for members): the admin API's
// create and update take `access` and `access_roles` beside the page's fields, and
// both land in one transaction (a page meant for members is never, even for a moment,
// written for everyone). The rule is live at once, not part of the draft.
import { inTransaction, type AppContext } from '../lib/context.js';
import type { Actor } from '../models/audit.js';
import { checkAccessRule, setPageAccess, type PageAccess, type PageAccessRule } from '../models/pages/access.js';
import type { PageCatalog } from '../models/pages/catalog.js';
import {
  createPage,
  getPage,
  updatePage,
  type CreatePageOptions,
  type Page,
  type PageInput,
  type PagePatch,
  type UpdatePageOptions,
} from '../models/pages/pages.js';

/** The fields of a body that name a rule; undefined when it names none. */
export function ruleOf(body: { access?: PageAccess; access_roles?: number[] }): PageAccessRule | undefined {
  if (body.access === undefined && body.access_roles === undefined) return undefined;
  return { access: body.access ?? 'roles', access_roles: body.access_roles ?? [] };
}

export async function createPageWithAccess(
  ctx: AppContext,
  input: PageInput,
  rule: PageAccessRule | undefined,
  actor: Actor | null,
  catalog: PageCatalog,
  options: CreatePageOptions,
): Promise<Page> {
  if (!rule) return createPage(ctx, input, actor, catalog, options);
  // Checked first: a refused rule leaves nothing written.
  await checkAccessRule(ctx, rule);
  return inTransaction(ctx, async (tx) => {
    const page = await createPage(tx, input, actor, catalog, options);
    return { ...page, ...(await setPageAccess(tx, page.id, rule, actor)) };
  });
}

export async function updatePageWithAccess(
  ctx: AppContext,
  id: number,
  patch: PagePatch,
  rule: PageAccessRule | undefined,
  actor: Actor | null,
  catalog: PageCatalog,
  options: UpdatePageOptions,
): Promise<Page> {
  if (!rule) return updatePage(ctx, id, patch, actor, catalog, options);
  return inTransaction(ctx, async (tx) => {
    const applied = await setPageAccess(tx, id, rule, actor);
    const page = Object.keys(patch).length > 0 ? await updatePage(tx, id, patch, actor, catalog, options) : await getPage(tx, id);
    return { ...page, ...applied };
  });
}
