// /app/api/roles and /app/api/permissions (SPEC A6 "Roles and permissions").
import * as roles from '../../controllers/api/roles.js';
import { validate } from '../../middleware/validate.js';
import * as schemas from './schemas.js';
import type { ApiRoute } from './table.js';

const view = { permission: 'roles.view' };
const manage = { permission: 'roles.manage' };

export const roleRoutes: ApiRoute[] = [
  { method: 'get', path: '/roles', access: view, handlers: [validate({ query: schemas.pageQuery }), roles.listRolesHandler] },
  { method: 'post', path: '/roles', access: manage, handlers: [validate({ query: schemas.noQuery, body: schemas.createRoleBody }), roles.createRoleHandler] },
  { method: 'get', path: '/roles/:id', access: view, handlers: [validate({ params: schemas.idParams, query: schemas.noQuery }), roles.showRoleHandler] },
  { method: 'put', path: '/roles/:id', access: manage, handlers: [validate({ params: schemas.idParams, query: schemas.noQuery, body: schemas.updateRoleBody }), roles.updateRoleHandler] },
  { method: 'delete', path: '/roles/:id', access: manage, handlers: [validate({ params: schemas.idParams, query: schemas.noQuery, body: schemas.noBody }), roles.deleteRoleHandler] },
  { method: 'get', path: '/permissions', access: view, handlers: [validate({ query: schemas.noQuery }), roles.permissionCatalogueHandler] },
];
