// Roles and the permission catalogue, /app/api/roles and /app/api/permissions.
import type { Request, Response } from 'express';
import { createRole, deleteRole, getRole, listRoles, permissionCatalogue, updateRole } from '../../models/auth/roles.js';
import { callerOf, listBody } from './caller.js';

// GET /app/api/roles?limit=&offset=
export async function listRolesHandler(_req: Request, res: Response): Promise<void> {
  const { limit, offset } = res.locals.query;
  const { items, total } = await listRoles({ limit, offset });
  res.json(listBody(items, total, limit, offset));
}

// POST /app/api/roles {name, description?, permissions}
export async function createRoleHandler(req: Request, res: Response): Promise<void> {
  res.status(201).json(await createRole(callerOf(req), req.body));
}

// GET /app/api/roles/:id
export async function showRoleHandler(req: Request, res: Response): Promise<void> {
  res.json(await getRole(Number(req.params.id)));
}

// PUT /app/api/roles/:id {name?, description?, permissions?}
export async function updateRoleHandler(req: Request, res: Response): Promise<void> {
  res.json(await updateRole(callerOf(req), Number(req.params.id), req.body));
}

// DELETE /app/api/roles/:id
export async function deleteRoleHandler(req: Request, res: Response): Promise<void> {
  await deleteRole(callerOf(req), Number(req.params.id));
  res.status(204).end();
}

// GET /app/api/permissions — [{section, label, permissions:[{key,label}]}], core sections first.
export async function permissionCatalogueHandler(_req: Request, res: Response): Promise<void> {
  res.json(await permissionCatalogue());
}
