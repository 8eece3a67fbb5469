// Redirect rows of the pages module: the JSON routes under /app/api/admin/redirects and
// the screen /admin/redirects; pages.view reads, pages.manage writes.
import * as redirects from '../../controllers/pages/admin-redirects.js';
import { route, type AnyRoute } from '../define.js';

const VIEW = { permission: 'pages.view' } as const;
const MANAGE = { permission: 'pages.manage' } as const;

const REDIRECTS_PATH = '/admin/redirects';

export function redirectApiRoutes(): AnyRoute[] {
  return [
    route({ method: 'get', path: REDIRECTS_PATH, access: VIEW, query: redirects.redirectListQuery, handler: redirects.listRedirectItems }),
    route({ method: 'post', path: REDIRECTS_PATH, access: MANAGE, body: redirects.redirectBody, handler: redirects.addRedirect }),
    route({ method: 'delete', path: `${REDIRECTS_PATH}/:id`, access: MANAGE, params: redirects.redirectParams, handler: redirects.removeRedirect }),
  ];
}

export function redirectAdminRoutes(): AnyRoute[] {
  return [
    route({ method: 'get', path: '/redirects', access: VIEW, query: redirects.redirectScreenQuery, handler: (call) => redirects.showRedirects(call) }),
    route({
      method: 'post',
      path: '/redirects',
      access: MANAGE,
      body: redirects.redirectForm,
      form: { name: 'redirect', rerender: redirects.showRedirects },
      handler: redirects.saveRedirectForm,
    }),
    route({
      method: 'post',
      path: '/redirects/:id/delete',
      access: MANAGE,
      params: redirects.redirectParams,
      form: { name: 'delete', rerender: redirects.showRedirects },
      handler: redirects.deleteRedirectForm,
    }),
  ];
}
