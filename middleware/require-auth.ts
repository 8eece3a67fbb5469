// One permission middleware for the HTML areas and the JSON API alike. Permissions come
// from req.user, loaded fresh for each request by the session middleware.
import type { NextFunction, Request, Response } from 'express';
import { ForbiddenError, UnauthenticatedError } from '../lib/errors.js';
import { wantsJson } from './error-handler.js';
import { authMessagesForGuards } from '../lib/messages.js';

function loginRedirect(req: Request, res: Response): void {
  const next = encodeURIComponent(req.originalUrl);
  res.redirect(303, `/auth/login?next=${next}`);
}

/** Any logged-in user. Without a session: 401 JSON, or a redirect to the login page. */
export function requireUser(req: Request, res: Response, next: NextFunction): void {
  if (req.user) return next();
  if (wantsJson(req) || req.method !== 'GET') return next(new UnauthenticatedError(authMessagesForGuards.loginRequired));
  loginRedirect(req, res);
}

export function hasPermission(req: Request, permission: string): boolean {
  return Boolean(req.user?.permissions.includes(permission));
}

/**
 * Auth level 'admin': the user needs admin.access AND every listed permission
 * (admin.access alone is not enough). Missing session → 401/redirect, missing
 * permission → 403.
 */
export function requirePermission(...permissions: string[]) {
  const required = ['admin.access', ...permissions];
  return function requirePermissionMiddleware(req: Request, res: Response, next: NextFunction): void {
    if (!req.user) return requireUser(req, res, next);
    if (required.every((permission) => req.user!.permissions.includes(permission))) return next();
    next(new ForbiddenError(authMessagesForGuards.forbidden));
  };
}

/**
 * admin.access AND at least one of the listed permissions (a row with an `own`
 * permission), or one of `scoped` held on part of a module's objects (a section of the
 * page tree: the row then checks its subject once the input is validated).
 */
export function requireAnyPermission(permissions: string[], scoped: string[] = []) {
  return function requireAnyPermissionMiddleware(req: Request, res: Response, next: NextFunction): void {
    if (!req.user) return requireUser(req, res, next);
    const held = req.user.permissions;
    const heldScoped = req.user.scoped_permissions ?? [];
    if (
      held.includes('admin.access') &&
      (permissions.some((permission) => held.includes(permission)) || scoped.some((permission) => heldScoped.includes(permission)))
    ) {
      return next();
    }
    next(new ForbiddenError(authMessagesForGuards.forbidden));
  };
}
