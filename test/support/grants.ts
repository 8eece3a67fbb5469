// Samples of the grants' rows (issue 26, item 4) for the permission matrices: a grant on
// the fixture's page, and a caller that holds site-wide what it gives (grants never give
// more than their giver holds, so a role manager giving pages.view must hold it).
import { grantOnPage } from '../../models/pages/grants.js';
import type { Fixture } from './route-table.js';

/** The caller's own custom role gets pages.view site-wide (system roles are left as they are). */
export async function holdPagesView(f: Fixture): Promise<void> {
  if (!f.caller) return;
  const role = await f.ctx.db('app_auth_users as u').join('app_auth_roles as r', 'r.id', 'u.role_id').where('u.id', f.caller.id).first('r.id', 'r.system');
  if (!role || role.system) return;
  await f.ctx.db('app_auth_role_permissions').insert({ role_id: role.id, permission_key: 'pages.view' }).onConflict(['role_id', 'permission_key']).ignore();
}

/** A grant of pages.view to the fixture's spare role on the fixture's page: `/admin/pages/:id/permissions/:grantId`. */
export async function grantPath(f: Fixture): Promise<string> {
  const page = await f.page();
  const grant = await grantOnPage(f.ctx, page.id, f.spareRoleId, ['pages.view'], null);
  return `/admin/pages/${page.id}/permissions/${grant.id}`;
}
