// The site's menus: the JSON routes under /app/api/admin/menus/:name and the screen
// /admin/menus; both need menus.manage (an editor's job, apart from pages.manage).
import * as menus from '../../controllers/pages/admin-menus.js';
import type { TreeOptions } from '../../controllers/pages/admin-screens-tree.js';
import { menuBody, menuParams } from '../../controllers/pages/menu-schemas.js';
import { route, type AnyRoute } from '../define.js';

const MANAGE = { permission: 'menus.manage' } as const;

export function menuApiRoutes(): AnyRoute[] {
  return [
    route({ method: 'get', path: '/admin/menus/:name', access: MANAGE, params: menuParams, handler: menus.showMenuItems }),
    route({ method: 'put', path: '/admin/menus/:name', access: MANAGE, params: menuParams, body: menuBody, handler: menus.replaceMenuItems }),
  ];
}

export function menuAdminRoutes(tree: TreeOptions): AnyRoute[] {
  return [
    route({ method: 'get', path: '/menus', access: MANAGE, handler: (call) => menus.showMenus(call) }),
    route({
      method: 'post',
      path: '/menus/:name',
      access: MANAGE,
      params: menuParams,
      body: menus.menuForm,
      form: { name: (call) => (call.params as { name: string }).name, rerender: menus.rerenderMenu },
      handler: (call) => menus.postMenuForm(tree, call),
    }),
  ];
}
