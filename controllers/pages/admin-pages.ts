// Admin JSON routes of the pages module (SPEC B2), under /app/api/admin/pages. Input
// arrives validated and typed by the route rows (routes/pages/api.ts).
import type { Call } from '../../routes/define.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { deletePage, duplicatePage, getPage, listPages } from '../../models/pages/pages.js';
import { createPageWithAccess, ruleOf, updatePageWithAccess } from '../../services/pages-access.js';
import { actorOf as actor } from './admin-call.js';
import { pageRightsMessages } from './messages.js';
import { assertMayDeleteSubtree, assertMayPublish, mayPublishPage } from './page-rights.js';
import { sectionsOnly } from './section-rights.js';
import type { AdminListQuery, PageCreateBody, PageUpdateBody } from './schemas.js';

type Id = { id: number };

// GET /app/api/admin/pages?visibility=&parent=&limit=&offset=
export async function listAdminPages(call: Call<Record<string, never>, AdminListQuery>): Promise<void> {
  const { visibility, parent, limit, offset } = call.query;
  const parentId = parent === undefined ? undefined : parent === 'root' ? null : parent;
  const withinSectionsOf = sectionsOnly(call) ? call.origin.userId! : undefined;
  const { items, total } = await listPages(call.ctx, { visibility, parentId, limit, offset, withinSectionsOf });
  call.res.json({ items, total, limit, offset });
}

// POST /app/api/admin/pages
// (live at once, as SPEC says, which needs pages.publish (or pages.publish_own); `"publish":
// false` creates a never-published page, all pages.manage(_own) allows)
export async function createAdminPage(catalog: PageCatalog, call: Call<Record<string, never>, Record<string, never>, PageCreateBody>): Promise<void> {
  const { publish, access, access_roles: accessRoles, ...input } = call.body;
  if (publish !== false) await assertMayPublish(call, null, pageRightsMessages.createLiveForbidden);
  const rule = ruleOf({ access, access_roles: accessRoles });
  call.res.status(201).json(await createPageWithAccess(call.ctx, input, rule, actor(call), catalog, { publish }));
}

// GET /app/api/admin/pages/templates
export function listAdminTemplates(catalog: PageCatalog, call: Call): void {
  call.res.json({ items: catalog.templates.list() });
}

// GET /app/api/admin/pages/:id
export async function showAdminPage(call: Call<Id>): Promise<void> {
  call.res.json(await getPage(call.ctx, call.params.id));
}

// PUT /app/api/admin/pages/:id (live at once; `if_revision` optional; `merge` merges a stale one)
export async function updateAdminPage(catalog: PageCatalog, call: Call<Id, Record<string, never>, PageUpdateBody>): Promise<void> {
  const { if_revision: ifRevision, merge, access, access_roles: accessRoles, ...patch } = call.body;
  const rule = ruleOf({ access, access_roles: accessRoles });
  // A move alone is pages.manage's; any other field (the reading rule too) changes the live page.
  if (rule || Object.keys(patch).some((field) => field !== 'parent_id')) await assertMayPublish(call, call.params.id, pageRightsMessages.liveEditForbidden);
  call.res.json(await updatePageWithAccess(call.ctx, call.params.id, patch, rule, actor(call), catalog, { ifRevision, merge }));
}

// POST /app/api/admin/pages/:id/duplicate (a caller who may not publish gets a never-published copy)
export async function duplicateAdminPage(call: Call<Id>): Promise<void> {
  call.res.status(201).json(await duplicatePage(call.ctx, call.params.id, actor(call), { publish: await mayPublishPage(call, null) }));
}

// DELETE /app/api/admin/pages/:id?cascade=true
export async function deleteAdminPage(call: Call<Id, { cascade: boolean }>): Promise<void> {
  await assertMayDeleteSubtree(call, call.params.id, call.query.cascade);
  await deletePage(call.ctx, call.params.id, { cascade: call.query.cascade, actor: actor(call) });
  call.res.status(204).end();
}
