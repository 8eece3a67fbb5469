// Single sign-on providers (issue 27, item 1): the /admin/sign-in screens and the JSON
// rows under /app/api/admin/sign-in/providers, all behind `sign_in.manage`. The
// sign-in routes themselves (/auth/sso/…) are /auth rows (routes/auth.ts).
import * as api from '../controllers/api/sign-in.js';
import * as screen from '../controllers/admin/sign-in.js';
import { providerBody, providerChanges, providerForm, providerParams } from '../controllers/admin/sign-in-schemas.js';
import { route, type AnyRoute } from './define.js';

export const SIGN_IN_MANAGE = 'sign_in.manage';
const MANAGE = { permission: SIGN_IN_MANAGE };
const API_PATH = '/admin/sign-in/providers';

export const signInApiRoutes: AnyRoute[] = [
  route({ method: 'get', path: API_PATH, access: MANAGE, handler: api.listProviders }),
  route({ method: 'post', path: API_PATH, access: MANAGE, body: providerBody, handler: api.addProvider }),
  route({ method: 'get', path: `${API_PATH}/:id`, access: MANAGE, params: providerParams, handler: api.showProvider }),
  route({ method: 'put', path: `${API_PATH}/:id`, access: MANAGE, params: providerParams, body: providerChanges, handler: api.changeProvider }),
  route({ method: 'delete', path: `${API_PATH}/:id`, access: MANAGE, params: providerParams, handler: api.deleteProvider }),
];

export const signInAdminRoutes: AnyRoute[] = [
  route({ method: 'get', path: '/sign-in', access: MANAGE, handler: (call) => screen.showProviders(call) }),
  route({
    method: 'post',
    path: '/sign-in',
    access: MANAGE,
    body: providerForm,
    form: { name: 'provider', rerender: screen.showProviders, secret: ['client_secret'] },
    handler: screen.saveNewProvider,
  }),
  route({ method: 'get', path: '/sign-in/:id', access: MANAGE, params: providerParams, handler: (call) => screen.showProvider(call) }),
  route({
    method: 'post',
    path: '/sign-in/:id',
    access: MANAGE,
    params: providerParams,
    body: providerForm,
    form: { name: 'provider', rerender: screen.showProvider, secret: ['client_secret'] },
    handler: screen.saveProvider,
  }),
  route({
    method: 'post',
    path: '/sign-in/:id/delete',
    access: MANAGE,
    params: providerParams,
    form: { name: 'delete', rerender: screen.showProvider },
    handler: screen.deleteProvider,
  }),
];
