// /app/api/roles and /app/api/permissions (SPEC A6 "Roles and permissions").
import * as roles from '../../controllers/api/roles.js';
import { idParams } from '../../lib/schema-primitives.js';
import { route, type AnyRoute } from '../define.js';
import * as schemas from './schemas.js';

const view = { permission: 'roles.view' };
const manage = { permission: 'roles.manage' };

export const roleApiRoutes: AnyRoute[] = [
  route({ method: 'get', path: '/roles', access: view, query: schemas.pageQuery, handler: roles.listRolesHandler }),
  route({ method: 'post', path: '/roles', access: manage, body: schemas.createRoleBody, handler: roles.createRoleHandler }),
  route({ method: 'get', path: '/roles/:id', access: view, params: idParams, handler: roles.showRoleHandler }),
  route({ method: 'put', path: '/roles/:id', access: manage, params: idParams, body: schemas.updateRoleBody, handler: roles.updateRoleHandler }),
  route({ method: 'delete', path: '/roles/:id', access: manage, params: idParams, handler: roles.deleteRoleHandler }),
  route({ method: 'get', path: '/permissions', access: view, handler: roles.permissionCatalogueHandler }),
];
