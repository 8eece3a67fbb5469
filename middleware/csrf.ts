// CSRF tokens for HTML forms, usable without a session (visitors of /auth have none):
// a double-submit token. A random value lives in an HttpOnly cookie; each form carries
// `_csrf` = salt + HMAC(secret, value + salt). A forged request cannot read the cookie,
// and a planted cookie is useless without the secret to sign the matching field.
// The first line of defence, refusing cross-site Origin/Sec-Fetch-Site, runs first.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { activeConfig } from '../lib/config.js';
import { ForbiddenError } from '../lib/errors.js';
import { refuseCrossSite } from './cross-site.js';

export const CSRF_COOKIE = 'site.csrf';
export const CSRF_FIELD = '_csrf';
export const csrfMessage = 'Le formulaire a expiré. Il peut être envoyé à nouveau depuis cette page.';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) {
      const value = part.slice(index + 1).trim();
      return /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

function sign(secretValue: string, salt: string): string {
  return createHmac('sha256', activeConfig().sessionSecret).update(`csrf:${secretValue}:${salt}`).digest('base64url');
}

function tokenFor(secretValue: string): string {
  const salt = randomBytes(9).toString('base64url');
  return `${salt}.${sign(secretValue, salt)}`;
}

function tokenMatches(secretValue: string, token: unknown): boolean {
  if (typeof token !== 'string' || token.length > 200) return false;
  const [salt, mac] = token.split('.');
  if (!salt || !mac) return false;
  const expected = Buffer.from(sign(secretValue, salt));
  const given = Buffer.from(mac);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Sets res.locals.csrfToken for the forms of the page, creating the cookie when the
 * browser has none yet. Mount it on every route that renders a form (GET and POST:
 * a re-rendered form needs a token too).
 */
export function provideCsrfToken(req: Request, res: Response, next: NextFunction): void {
  let secretValue = readCookie(req, CSRF_COOKIE);
  if (!secretValue) {
    secretValue = randomBytes(24).toString('base64url');
    res.cookie(CSRF_COOKIE, secretValue, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/' });
    // A request in flight (the POST being re-rendered) must see the new value too.
    res.locals.csrfCookieIssued = true;
  }
  res.locals.csrfSecret = secretValue;
  res.locals.csrfToken = tokenFor(secretValue);
  next();
}

/** Refuses (403, code csrf) a state-changing request without a valid token. */
export function verifyCsrfToken(req: Request, res: Response, next: NextFunction): void {
  if (SAFE_METHODS.has(req.method)) return next();
  const secretValue = res.locals.csrfCookieIssued ? undefined : readCookie(req, CSRF_COOKIE);
  const token = req.body?.[CSRF_FIELD] ?? req.get('x-csrf-token');
  if (!secretValue || !tokenMatches(secretValue, token)) return next(new ForbiddenError(csrfMessage, { code: 'csrf' }));
  next();
}

/** Both lines of defence, for any form POST (the admin area reuses it). */
export const csrfProtection = [refuseCrossSite, verifyCsrfToken];
