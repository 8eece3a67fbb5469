// Roles and the permission catalogue, /app/api/roles and /app/api/permissions.
import type { Call } from '../../routes/define.js';
import type { Page, RoleBody, RoleUpdateBody } from '../../routes/api/schemas.js';
import { ENROLMENT_PAGE } from '../../middleware/two-factor-gate.js';
import { createRole, deleteRole, getRole, listRoles, permissionCatalogue, roleWarnings, updateRole, type Role } from '../../models/auth/roles.js';
import { callerOf, listBody } from './caller.js';

type Id = { id: number };

// GET /app/api/roles?limit=&offset=
export async function listRolesHandler({ ctx, res, query }: Call<Record<string, never>, Page>): Promise<void> {
  const { items, total } = await listRoles(ctx, query);
  res.json(listBody(items, total, query.limit, query.offset));
}

/**
 * Any set of permissions is valid (SPEC); a role written with administration permissions
 * but without admin.access carries `warnings: [{code: "admin_access_missing", message}]`.
 */
function withWarnings<T extends Role>(role: T): T & { warnings?: ReturnType<typeof roleWarnings> } {
  const warnings = roleWarnings(role.permissions);
  return warnings.length ? { ...role, warnings } : role;
}

// POST /app/api/roles {name, description?, permissions}
export async function createRoleHandler({ ctx, req, res, body }: Call<Record<string, never>, Record<string, never>, RoleBody>): Promise<void> {
  res.status(201).json(withWarnings(await createRole(ctx, callerOf(req), body)));
}

// GET /app/api/roles/:id
export async function showRoleHandler({ ctx, res, params }: Call<Id>): Promise<void> {
  res.json(await getRole(ctx, params.id));
}

// Where a caller that must now enrol does it: the page, and the API's first step.
const SECOND_FACTOR_ENROLMENT = { page: ENROLMENT_PAGE, api: '/app/api/users/profile/2fa/setup' };

// PUT /app/api/roles/:id {name?, label?, description?, permissions?, require_2fa?, confirm?}
// A role the caller holds, made to require two-step verification the caller has not set
// up: 409 second_factor_confirmation_required unless `confirm: true`; then the role with
// `second_factor_enrolment` {page, api}, where the caller must go next.
export async function updateRoleHandler({ ctx, req, res, params, body }: Call<Id, Record<string, never>, RoleUpdateBody>): Promise<void> {
  const { role, callerMustEnrol } = await updateRole(ctx, callerOf(req), params.id, body);
  res.json(withWarnings(callerMustEnrol ? { ...role, second_factor_enrolment: SECOND_FACTOR_ENROLMENT } : role));
}

// DELETE /app/api/roles/:id
export async function deleteRoleHandler({ ctx, req, res, params }: Call<Id>): Promise<void> {
  await deleteRole(ctx, callerOf(req), params.id);
  res.status(204).end();
}

// GET /app/api/permissions — [{section, label, permissions:[{key,label}]}], core sections first.
export async function permissionCatalogueHandler({ ctx, res }: Call): Promise<void> {
  res.json(await permissionCatalogue(ctx));
}
