// Grants on a section of the tree (issue 26, item 4): the JSON rows and the screen's.
// roles.view reads them, roles.manage changes them (controllers/pages/grants.ts).
import * as grants from '../../controllers/pages/grants.js';
import { pageParams } from '../../controllers/pages/admin-call.js';
import { idParams } from '../../lib/schema-primitives.js';
import { route, type AnyRoute } from '../define.js';

const READ = { permission: 'roles.view' } as const;
const WRITE = { permission: 'roles.manage' } as const;

export function grantApiRoutes(): AnyRoute[] {
  return [
    route({ method: 'get', path: '/admin/pages/:id/permissions', access: READ, params: idParams, handler: grants.listGrants }),
    route({ method: 'post', path: '/admin/pages/:id/permissions', access: WRITE, params: idParams, body: grants.grantBody, handler: grants.createGrant }),
    route({ method: 'delete', path: '/admin/pages/:id/permissions/:grantId', access: WRITE, params: grants.grantParams, handler: grants.deleteGrant }),
  ];
}

export function grantAdminRoutes(): AnyRoute[] {
  return [
    route({ method: 'get', path: '/pages/:id/permissions', access: READ, params: pageParams, handler: (call) => grants.showGrants(call) }),
    route({
      method: 'post',
      path: '/pages/:id/permissions',
      access: WRITE,
      params: pageParams,
      body: grants.grantForm,
      form: { name: 'grant', rerender: grants.showGrants },
      handler: grants.saveGrant,
    }),
    route({
      method: 'post',
      path: '/pages/:id/permissions/:grantId/delete',
      access: WRITE,
      params: grants.grantParams,
      form: { name: 'remove-grant', rerender: grants.showGrants },
      handler: grants.removeGrant,
    }),
  ];
}
