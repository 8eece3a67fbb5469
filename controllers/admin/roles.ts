// /admin/roles: list with user counts, create, edit with the catalogue as grouped
// checkboxes, delete after confirmation. `admin` is read-only; other system roles keep
// their name. Writes go through models/auth/roles.ts, as the REST API does.
import type { Request, Response } from 'express';
import { ConflictError } from '../../lib/errors.js';
import { hasPermission } from '../../middleware/require-auth.js';
import { validateValue } from '../../middleware/validate.js';
import { ADMIN_ROLE, createRole, deleteRole, getRole, listRoles, permissionCatalogue, roleMessages, updateRole } from '../../models/auth/roles.js';
import { callerOf } from '../api/caller.js';
import { adminMessages } from './messages.js';
import { roleForm, systemRoleForm } from './schemas.js';
import { redirectWithFlash, renderAdmin, type FormLocals } from './shell.js';

function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

// GET /admin/roles
export async function showRoleList(req: Request, res: Response): Promise<void> {
  const { items } = await listRoles({ limit: 500, offset: 0 });
  await renderAdmin(req, res, 'admin/roles/list.njk', { pageTitle: 'Rôles', roles: items, canManage: hasPermission(req, 'roles.manage') });
}

// GET /admin/roles/new
export async function showNewRole(req: Request, res: Response, locals: FormLocals = {}, status = 200): Promise<void> {
  const checked = locals.values ? asList(locals.values.permissions) : [];
  await renderAdmin(
    req,
    res,
    'admin/roles/form.njk',
    { pageTitle: 'Nouveau rôle', catalogue: await permissionCatalogue(), checked, action: '/admin/roles', creating: true, ...locals },
    status,
  );
}

// POST /admin/roles {name, description, permissions[]}
export async function saveNewRole(req: Request, res: Response): Promise<void> {
  const input = validateValue<{ name: string; description: string; permissions: string[] }>(roleForm, req.body, { allowUnknown: true });
  const role = await createRole(callerOf(req), input);
  redirectWithFlash(req, res, `/admin/roles/${role.id}`, adminMessages.roleCreated);
}

// GET /admin/roles/:id — the edit form (read-only for admin).
export async function showRole(req: Request, res: Response, locals: FormLocals = {}, status = 200): Promise<void> {
  const role = await getRole(Number(req.params.id));
  const checked = locals.values ? asList(locals.values.permissions) : role.permissions;
  await renderAdmin(
    req,
    res,
    'admin/roles/form.njk',
    {
      pageTitle: `Rôle ${role.name}`,
      role,
      catalogue: await permissionCatalogue(),
      checked,
      action: `/admin/roles/${role.id}`,
      readOnly: role.name === ADMIN_ROLE || !hasPermission(req, 'roles.manage'),
      values: { name: role.name, description: role.description },
      ...locals,
    },
    status,
  );
}

// POST /admin/roles/:id
export async function saveRole(req: Request, res: Response): Promise<void> {
  const id = Number(req.params.id);
  const role = await getRole(id);
  const input = validateValue<{ name?: string; description: string; permissions: string[] }>(role.system ? systemRoleForm : roleForm, req.body, {
    allowUnknown: true,
  });
  await updateRole(callerOf(req), id, input);
  redirectWithFlash(req, res, `/admin/roles/${id}`, adminMessages.roleSaved);
}

// GET /admin/roles/:id/delete — the confirmation page.
export async function confirmDeleteRole(req: Request, res: Response, locals: FormLocals = {}, status = 200): Promise<void> {
  const role = await getRole(Number(req.params.id));
  if (role.system) throw new ConflictError(roleMessages.systemRoleNotDeletable, { code: 'system_role' });
  await renderAdmin(req, res, 'admin/roles/delete.njk', { pageTitle: `Supprimer le rôle ${role.name}`, role, ...locals }, status);
}

// POST /admin/roles/:id/delete
export async function removeRole(req: Request, res: Response): Promise<void> {
  await deleteRole(callerOf(req), Number(req.params.id));
  redirectWithFlash(req, res, '/admin/roles', adminMessages.roleDeleted);
}
