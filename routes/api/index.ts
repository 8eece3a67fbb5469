// The JSON API under /app/api (SPEC A6, DESIGN §3): the rows the core and the modules
// registered (ctx.site.apiRoutes) on the strict JSON surface. Each row runs, in order:
// its session lookup (skipped for a public row) and guard (routes/define.ts), then
// 1. writes whose Origin / Sec-Fetch-Site shows another site → 403 (CSRF, DESIGN §3);
// 2. writes with a body that is not application/json → 415 (multipart only on a row
//    that declares an `upload`, urlencoded only on a row that declares a `form`: a
//    page of ours posts to it; an empty body is fine);
// 3. the `api` rate limit per client address on writes, three times the budget for a
//    logged-in caller;
// 4. the JSON parser: at most JSON_BODY_LIMIT, `__proto__` keys refused (joi would
//    silently drop them); for an upload row, the multipart parser instead;
// then validation and the handler; a refused form post shows the row's page again.
// Any other path, whatever the method, is a JSON 404.
import express, { Router, type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { AppContext } from '../../lib/context.js';
import { RateLimitedError, UnsupportedMediaTypeError } from '../../lib/errors.js';
import { uploadParserFor } from '../../lib/uploads.js';
import { createCrossSiteRefusal } from '../../middleware/cross-site.js';
import { notFound, toAppError } from '../../middleware/error-handler.js';
import { createRateLimiter } from '../../middleware/rate-limit.js';
import { builtOnFirstRequest, checkRows, mountRoutes, originOf, type AnyRoute, type FormSpec, type Surface } from '../define.js';
import { apiMessages } from '../../lib/messages.js';

/** Largest JSON body accepted (documented in docs/decisions.md); larger → 413. */
const JSON_BODY_LIMIT = '100kb';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const API_WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

function isWrite(row: AnyRoute): boolean {
  return row.method !== 'get';
}

/** Step 2: a write's body is JSON, or nothing; multipart only where the row takes an upload. */
function refuseNonJsonWrites(row: AnyRoute): RequestHandler {
  return function refuseNonJsonWrite(req: Request, _res: Response, next: NextFunction): void {
    // req.is() answers null when the request has no body; an empty one carries nothing either.
    const json = req.is('application/json');
    if (READ_METHODS.has(req.method) || json === null || json || req.get('content-length') === '0') return next();
    if (row.upload && req.is('multipart/form-data')) return next();
    if (row.form && req.is('application/x-www-form-urlencoded')) return next();
    next(new UnsupportedMediaTypeError(apiMessages.jsonOnly, { code: 'unsupported_media_type' }));
  };
}

function refuseProtoKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new SyntaxError('__proto__ is not an accepted key');
  return value;
}

function isFormPost(req: Request): boolean {
  return req.method === 'POST' && Boolean(req.is('application/x-www-form-urlencoded'));
}

/**
 * A form row posted from our page (urlencoded) and refused by the rules or the rate
 * limit: the row's page again, with the message, in HTML. A JSON client of the same
 * row, a cross-site or unsupported request and internal errors keep the API's answers.
 */
function formPageOnFailure(ctx: AppContext, spec: FormSpec): ErrorRequestHandler {
  return async function formPageFailure(error: unknown, req: Request, res: Response, next: NextFunction): Promise<void> {
    if (res.headersSent || !isFormPost(req)) return next(error);
    const appError = toAppError(error);
    if (appError.status >= 500 || appError.status === 403 || appError.status === 415) return next(error);
    if (appError instanceof RateLimitedError) res.setHeader('Retry-After', String(appError.retryAfterSeconds));
    const call = { ctx, req, res, origin: originOf(req), params: req.params, query: req.query, body: (req.body ?? {}) as Record<string, unknown> };
    await spec.rerender(
      call,
      { form: typeof spec.name === 'string' ? spec.name : undefined, error: appError.message, errorCode: appError.code },
      appError.status,
    );
  };
}

/** The strict JSON surface; one rate limiter and one parser shared by every row. */
function apiSurface(ctx: AppContext, session: RequestHandler[]): Surface {
  const refuseCrossSite = createCrossSiteRefusal(ctx);
  const limiter = createRateLimiter(ctx, 'api', { methods: API_WRITE_METHODS, loggedInMultiplier: 3 });
  const json = express.json({ limit: JSON_BODY_LIMIT, strict: true, type: 'application/json', reviver: refuseProtoKeys });
  // A form row's page posts a few short fields: plain key=value pairs, no nesting.
  const form = express.urlencoded({ extended: false, limit: '10kb', parameterLimit: 20 });
  return {
    strict: true,
    session,
    prepare(row) {
      const steps: RequestHandler[] = [];
      if (isWrite(row)) steps.push(refuseCrossSite, refuseNonJsonWrites(row), limiter);
      steps.push(row.upload ? uploadParserFor(ctx, row.upload) : json);
      if (row.form) steps.push(form);
      return steps;
    },
    failure: (row) => (row.form ? [formPageOnFailure(ctx, row.form)] : []),
  };
}

/** The JSON API's router, built by its first request (routes/define.ts builtOnFirstRequest). */
export function apiRouter(ctx: AppContext, session: RequestHandler[]): RequestHandler {
  const surface = apiSurface(ctx, session);
  const rows = ctx.site.apiRoutes;
  checkRows(surface, rows);
  return builtOnFirstRequest(() => {
    const router = Router();
    mountRoutes(router, ctx, surface, rows);
    router.use(notFound);
    return router;
  });
}
