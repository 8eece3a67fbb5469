// CSRF, first line: a state-changing request whose Origin or Sec-Fetch-Site shows
// another site is refused, whatever it carries. Forms add a token (middleware/csrf.ts);
// the JSON API relies on this check plus accepting only application/json.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../lib/context.js';
import { ForbiddenError } from '../lib/errors.js';
import { crossSiteMessage } from '../lib/messages.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isCrossSite(req: Request, baseUrl: string): boolean {
  const fetchSite = req.get('sec-fetch-site');
  // A browser that sends Sec-Fetch-Site says where the request comes from, and it is
  // the better signal: under `Referrer-Policy: no-referrer` the same browser sends
  // `Origin: null` even for a form posted from our own page.
  if (fetchSite) return fetchSite !== 'same-origin' && fetchSite !== 'none';
  const origin = req.get('origin');
  if (origin && origin !== 'null') {
    // The request's own host is one of ours: middleware/host-check.ts checked this same
    // value (X-Forwarded-Host behind a trusted proxy, else Host) and answers no other, or
    // a rebound name would pass as same-origin here.
    const allowed = new Set([new URL(baseUrl).origin, `${req.protocol}://${req.host}`]);
    return !allowed.has(origin);
  }
  return origin === 'null';
}

/** Refuses (403, code csrf) a state-changing request from another site. */
export function createCrossSiteRefusal(ctx: AppContext): RequestHandler {
  const { baseUrl } = ctx.config;
  return function refuseCrossSite(req: Request, _res: Response, next: NextFunction): void {
    if (SAFE_METHODS.has(req.method)) return next();
    if (isCrossSite(req, baseUrl)) return next(new ForbiddenError(crossSiteMessage, { code: 'csrf' }));
    next();
  };
}
