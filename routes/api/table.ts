// Every /app/api route of this area is declared as a row: method, path, who may call
// it, then its middleware and controller. mountApiRoutes() puts the guard of the row in
// front of everything else, so a route cannot be mounted without its authentication;
// the permission-matrix test reads the same rows, so a new route cannot be forgotten.
import type { RequestHandler, Router } from 'express';
import { requirePermission, requireUser } from '../../middleware/require-auth.js';

export type ApiAccess =
  /** Auth level 'admin': admin.access AND this permission. */
  | { permission: string }
  /** Any logged-in user (profile routes). */
  | 'user'
  /** No session needed: the request carries its own proof (a token from an email). */
  | 'token';

export interface ApiRoute {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  access: ApiAccess;
  handlers: RequestHandler[];
}

function guardFor(access: ApiAccess): RequestHandler[] {
  if (access === 'token') return [];
  if (access === 'user') return [requireUser];
  return [requirePermission(access.permission)];
}

export function mountApiRoutes(router: Router, routes: ApiRoute[]): void {
  for (const route of routes) router[route.method](route.path, ...guardFor(route.access), ...route.handlers);
}
