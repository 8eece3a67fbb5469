// The JSON API under /app/api (SPEC A6, DESIGN §3). In order, before any route:
// 1. writes whose Origin / Sec-Fetch-Site shows another site → 403 (CSRF, DESIGN §3);
// 2. writes with a body that is not application/json → 415 (multipart only where a
//    route accepts an upload: see acceptMultipart);
// 3. the `api` rate limit per client address on writes, three times the budget for a
//    logged-in caller;
// 4. the JSON parser: at most JSON_BODY_LIMIT, objects or arrays only, `__proto__`
//    keys refused (joi would silently drop them);
// then the routes, each behind its own guard (routes/api/table.ts). Modules append
// theirs through registerApi() after these.
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Config } from '../../lib/config.js';
import { UnsupportedMediaTypeError } from '../../lib/errors.js';
import { refuseCrossSite } from '../../middleware/cross-site.js';
import { createRateLimiter } from '../../middleware/rate-limit.js';
import { roleRoutes } from './roles.js';
import { mountApiRoutes, type ApiRoute } from './table.js';
import { PROFILE_PICTURE_PATH, profileRoutes, userRoutes } from './users.js';

/** Largest JSON body accepted (documented in docs/decisions.md); larger → 413. */
export const JSON_BODY_LIMIT = '100kb';

export const apiMessages = {
  jsonOnly: 'Le corps de la requête doit être envoyé en application/json.',
};

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const API_WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

// Routes that take multipart/form-data (uploads). Modules add theirs from registerApi().
const multipartRoutes: Array<{ method: string; path: RegExp }> = [];

/** Lets `method path` (path relative to /app/api) receive multipart/form-data uploads. */
export function acceptMultipart(method: string, path: string | RegExp): void {
  const pattern = typeof path === 'string' ? new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\?:[A-Za-z_]+/g, '[^/]+')}/?$`) : path;
  multipartRoutes.push({ method: method.toUpperCase(), path: pattern });
}

acceptMultipart('POST', PROFILE_PICTURE_PATH);

function refuseNonJsonWrites(req: Request, _res: Response, next: NextFunction): void {
  // req.is() answers null when the request has no body; an empty one carries nothing either.
  const json = req.is('application/json');
  if (READ_METHODS.has(req.method) || json === null || json || req.get('content-length') === '0') return next();
  if (req.is('multipart/form-data') && multipartRoutes.some((route) => route.method === req.method && route.path.test(req.path))) {
    return next();
  }
  next(new UnsupportedMediaTypeError(apiMessages.jsonOnly, { code: 'unsupported_media_type' }));
}

function refuseProtoKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new SyntaxError('__proto__ is not an accepted key');
  return value;
}

/** Every route of this area, in mounting order (profile before /users/:id). */
export const apiRoutes: ApiRoute[] = [...profileRoutes, ...userRoutes, ...roleRoutes];

export function apiRouter(_config: Config): Router {
  const router = Router();
  router.use(refuseCrossSite);
  router.use(refuseNonJsonWrites);
  router.use(createRateLimiter('api', { methods: API_WRITE_METHODS, loggedInMultiplier: 3 }));
  router.use(express.json({ limit: JSON_BODY_LIMIT, strict: true, type: 'application/json', reviver: refuseProtoKeys }));
  mountApiRoutes(router, apiRoutes);
  return router;
}
