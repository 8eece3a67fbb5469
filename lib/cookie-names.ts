// The names of the cookies this site sets. In production, on a request that arrived
// over HTTPS (directly or through the trusted proxy), each carries the `__Host-` prefix:
// a browser then accepts it only Secure, with Path=/ and no Domain, so neither a sibling
// domain (`evil.example.org` next to `example.org`) nor a plain-HTTP answer on the way
// can plant or overwrite one (a planted session or CSRF cookie). Over plain HTTP (a
// development site on http://localhost, a production site tried without TLS) a browser
// refuses the prefix: the names stay as they were.
import type { CookieOptions, Request } from 'express';
import type { Config } from './config.js';

export const HOST_PREFIX = '__Host-';

/** Whether this request's cookies carry the prefix. */
export function hostCookies(config: Pick<Config, 'isProduction'>, req: Pick<Request, 'secure'>): boolean {
  return config.isProduction && req.secure;
}

/** The name of the cookie `base` (e.g. `site.csrf`) for this request. */
export function cookieName(config: Pick<Config, 'isProduction'>, req: Pick<Request, 'secure'>, base: string): string {
  return hostCookies(config, req) ? HOST_PREFIX + base : base;
}

/**
 * The attributes every cookie of the site has (and a `__Host-` one needs): HttpOnly,
 * SameSite=Lax, Path=/, Secure over HTTPS. Clearing a cookie takes the same ones (a
 * browser drops a `__Host-` Set-Cookie without Secure, even an expired one).
 */
export function cookieOptions(req: Pick<Request, 'secure'>, extra: CookieOptions = {}): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/', ...extra };
}
