// CSRF tokens for HTML forms, usable without a session (visitors of /auth have none):
// a double-submit token. A random value lives in an HttpOnly cookie; each form carries
// `_csrf` = salt + HMAC(secret, value + salt + session). A forged request cannot read
// the cookie, and a planted cookie is useless without the secret to sign the matching
// field. When the request has a session, the token is also bound to it: someone who
// plants their own cookie in a victim's browser, with a token the site gave them for
// that cookie, still holds a token of another session (theirs, or none), refused.
// The first line of defence, refusing cross-site Origin/Sec-Fetch-Site, runs first.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../lib/context.js';
import { readCookie } from '../lib/cookies.js';
import { cookieName, cookieOptions } from '../lib/cookie-names.js';
import { ForbiddenError } from '../lib/errors.js';
import { createCrossSiteRefusal } from './cross-site.js';
import { csrfMessage } from '../lib/messages.js';

/** The cookie's name over HTTP; `__Host-` prefixed in production over HTTPS (lib/cookie-names.ts). */
const CSRF_COOKIE = 'site.csrf';
const CSRF_FIELD = '_csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The token cookie's value when it has the shape this code gives it. */
function tokenCookie(req: Request, name: string): string | undefined {
  const value = readCookie(req, name);
  return value !== undefined && /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : undefined;
}

/**
 * Defines res.locals[name] as computed on its first read, then kept. Pages read their
 * form tokens when they render (Express copies res.locals into the view's context), so
 * an answer that redirects or fails before rendering mints nothing.
 */
export function lazyLocal(res: Response, name: string, compute: () => unknown): void {
  let value: unknown;
  let computed = false;
  Object.defineProperty(res.locals, name, {
    configurable: true,
    enumerable: true,
    get() {
      if (!computed) {
        value = compute();
        computed = true;
      }
      return value;
    },
    set(given: unknown) {
      value = given;
      computed = true;
    },
  });
}

export interface Csrf {
  /** res.locals.csrfToken for the forms of the page (and the cookie when the browser has none), minted when read. */
  provideToken: RequestHandler;
  /** Refuses (403, code csrf) a state-changing request without a valid token. */
  verifyToken: RequestHandler;
  /** Both lines of defence for a form POST: the cross-site refusal, then the token. */
  protection: RequestHandler[];
  /**
   * Whether the request's token was minted for the session `sessionId` (one that has
   * expired since: a form typed while it ran out, kept for after the login).
   */
  tokenOfSession(req: Request, sessionId: string): boolean;
}

/**
 * The session a token is bound to: the stored (logged-in) session's id, or '' for a
 * visitor without one. express-session gives every request a fresh, unsaved id when it
 * has no stored session: binding to that would change at each request.
 */
function sessionBinding(req: Request): string {
  return req.session?.userId !== undefined ? req.sessionID : '';
}

export function createCsrf(ctx: AppContext): Csrf {
  const { config } = ctx;
  const { sessionSecret } = config;
  // `__Host-site.csrf` in production over HTTPS (lib/cookie-names.ts).
  const secretOf = (req: Request) => tokenCookie(req, cookieName(config, req, CSRF_COOKIE));
  const sign = (secretValue: string, salt: string, session: string) =>
    createHmac('sha256', sessionSecret).update(`csrf:${secretValue}:${salt}:${session}`).digest('base64url');

  function tokenFor(secretValue: string, session: string): string {
    const salt = randomBytes(9).toString('base64url');
    return `${salt}.${sign(secretValue, salt, session)}`;
  }

  function tokenMatches(secretValue: string, session: string, token: unknown): boolean {
    if (typeof token !== 'string' || token.length > 200) return false;
    const [salt, mac] = token.split('.');
    if (!salt || !mac) return false;
    const expected = Buffer.from(sign(secretValue, salt, session));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  function provideToken(req: Request, res: Response, next: NextFunction): void {
    lazyLocal(res, 'csrfToken', () => {
      let secretValue = secretOf(req);
      if (!secretValue) {
        secretValue = randomBytes(24).toString('base64url');
        res.cookie(cookieName(config, req, CSRF_COOKIE), secretValue, cookieOptions(req));
      }
      // Read when the page renders: the row's session lookup has run by then.
      return tokenFor(secretValue, sessionBinding(req));
    });
    next();
  }

  function verifyToken(req: Request, _res: Response, next: NextFunction): void {
    if (SAFE_METHODS.has(req.method)) return next();
    const secretValue = secretOf(req);
    const token = ((req.body ?? {}) as Record<string, unknown>)[CSRF_FIELD] ?? req.get('x-csrf-token');
    if (!secretValue || !tokenMatches(secretValue, sessionBinding(req), token)) return next(new ForbiddenError(csrfMessage, { code: 'csrf' }));
    next();
  }

  function tokenOfSession(req: Request, sessionId: string): boolean {
    const secretValue = secretOf(req);
    const token = ((req.body ?? {}) as Record<string, unknown>)[CSRF_FIELD];
    return secretValue !== undefined && tokenMatches(secretValue, sessionId, token);
  }

  return { provideToken, verifyToken, protection: [createCrossSiteRefusal(ctx), verifyToken], tokenOfSession };
}
