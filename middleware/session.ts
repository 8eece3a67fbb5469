// Sessions: read only by the rows that need them (every access but 'public'), never by
// public pages or assets. A request without the cookie costs no query; one with it
// costs the session read plus one query for the user and its permissions (read fresh,
// so a removed permission applies on the next request).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import session from 'express-session';
import signature from 'cookie-signature';
import type { AppContext } from '../lib/context.js';
import { cookieName, cookieOptions, HOST_PREFIX, hostCookies } from '../lib/cookie-names.js';
import { REFRESHED_SESSION_LIFETIME_MS, SESSION_LIFETIME_MS, SiteSessionStore, extendSession, validateSession } from '../models/auth/sessions.js';
import { findSessionUser, type SessionUser } from '../models/auth/users.js';
import { userTarget } from '../models/audit.js';
import { policyKeyOf, type SignInRecord } from '../models/auth/sign-in-policy.js';

/** The session cookie's name over HTTP; `__Host-site.sid` in production over HTTPS (lib/cookie-names.ts). */
export const SESSION_COOKIE = 'site.sid';
const HOST_SESSION_COOKIE = HOST_PREFIX + SESSION_COOKIE;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      user?: SessionUser;
    }
    interface Locals {
      /** The session cookie's name for this request (set by the session middleware). */
      sessionCookie?: string;
      /** The request came with the session cookie under its old name only (see adoptOldSessionCookie). */
      oldSessionCookie?: boolean;
    }
  }
}

/**
 * express-session over the application's session store, then the user loader. Its
 * cookie is named per request (lib/cookie-names.ts): one express-session for each name,
 * over the same store.
 */
export function createSessionMiddleware(ctx: AppContext): RequestHandler[] {
  const { config } = ctx;
  const store = new SiteSessionStore(ctx);
  const sessionNamed = (name: string) =>
    session({
      name,
      secret: config.sessionSecret,
      store,
      resave: false,
      saveUninitialized: false,
      rolling: false,
      proxy: config.trustProxy !== false,
      cookie: {
        httpOnly: true,
        sameSite: 'lax',
        // Secure whenever the request arrived over HTTPS (directly or via a trusted proxy).
        secure: 'auto',
        maxAge: SESSION_LIFETIME_MS,
        path: '/',
      },
    });
  const plain = sessionNamed(SESSION_COOKIE);
  const prefixed = sessionNamed(HOST_SESSION_COOKIE);
  function sessionUnderItsName(req: Request, res: Response, next: NextFunction): void {
    if (!hostCookies(config, req)) {
      res.locals.sessionCookie = SESSION_COOKIE;
      void plain(req, res, next);
      return;
    }
    res.locals.sessionCookie = HOST_SESSION_COOKIE;
    if (!req.session && renameOldSessionCookie(req)) res.locals.oldSessionCookie = true;
    void prefixed(req, res, next);
  }
  return [sessionUnderItsName, adoptOldSessionCookie, createSessionUserLoader(ctx)];
}

/**
 * A browser that signed in before the site took the `__Host-` names sends its session
 * under the old one: the request reads it under the new name (the header is rewritten
 * before express-session reads it). Only when the new one is absent.
 */
function renameOldSessionCookie(req: Request): boolean {
  const parts = (req.headers.cookie ?? '').split(';').map((part) => part.trim());
  const named = (name: string) => parts.some((part) => part.startsWith(`${name}=`));
  if (named(HOST_SESSION_COOKIE) || !named(SESSION_COOKIE)) return false;
  req.headers.cookie = parts.map((part) => (part.startsWith(`${SESSION_COOKIE}=`) ? HOST_PREFIX + part : part)).join('; ');
  return true;
}

/**
 * After an upgrade, people stay signed in: a session opened before, found under the old
 * name, is adopted once (marked, so saved, and its cookie sent back under the new name
 * as the answer ends) and the old cookie cleared. A session opened under the new name
 * (marked at login) is never taken under the old one: that copy was planted (from a
 * sibling domain, or over plain HTTP), which the prefix exists to stop; the request
 * goes on without a session.
 */
function adoptOldSessionCookie(req: Request, res: Response, next: NextFunction): void {
  if (!res.locals.oldSessionCookie) return next();
  res.locals.oldSessionCookie = false;
  res.clearCookie(SESSION_COOKIE, cookieOptions(req));
  if (req.session?.userId === undefined) return next();
  if (req.session.hostCookie) {
    // A fresh, empty session for this request; the stored one stays its owner's.
    if (req.sessionStore instanceof SiteSessionStore) req.sessionStore.detach(req);
    return next();
  }
  req.session.hostCookie = true;
  // A `__Host-` cookie must be Secure; the stored cookie data says how it was first sent.
  req.session.cookie.secure = true;
  next();
}

function createSessionUserLoader(ctx: AppContext): RequestHandler {
  // Several rows of a router may see the same request (a row passing it on): the
  // user is read once. express-session itself skips a request that has its session.
  const loaded = new WeakSet<Request>();
  return async function loadSessionUser(req: Request, res: Response, next: NextFunction): Promise<void> {
    if (loaded.has(req)) return next();
    loaded.add(req);
    const userId = req.session?.userId;
    if (userId !== undefined) {
      const user = await findSessionUser(ctx, userId);
      if (user && user.suspended_at === null) {
        req.user = user;
        res.locals.user = user;
      } else {
        // The account was deleted or suspended: the session is worthless (suspension
        // deletes the sessions too; this covers a login that raced it).
        await destroyRequestSession(req);
      }
    }
    next();
  };
}

/**
 * In-process equivalent of SPEC getSession(): the logged-in user of this request, or null.
 * @public (the specification's API, for modules)
 */
export function getSession(req: Request): { user: SessionUser; id: string } | null {
  return req.user ? { user: req.user, id: req.sessionID } : null;
}

function promisify(run: (callback: (error?: Error) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run((error) => (error ? reject(error) : resolve())));
}

/** The store's audit hook (SiteSessionStore), absent from any other store. */
function auditingStore(req: Request): SiteSessionStore | undefined {
  return req.sessionStore instanceof SiteSessionStore ? req.sessionStore : undefined;
}

/**
 * Opens a session for the user after a successful login or first-run creation. The id
 * is regenerated first, so a session id planted before login is worthless (fixation).
 * The statement that stores the session records `auth.login` (details: how — the
 * method, the provider, the second factor used), so the event exists exactly when the
 * session does; the session row keeps the method too (the profile's session list).
 */
export async function logInSession(
  req: Request,
  user: { id: number; name: string },
  details: SignInRecord & Record<string, unknown>,
  options: { flash?: string } = {},
): Promise<void> {
  await promisify((done) => req.session.regenerate(done));
  auditingStore(req)?.recordWithNext(req.sessionID, {
    actor: { id: user.id, name: user.name },
    ip: req.ip ?? null,
    action: 'auth.login',
    target: userTarget(user),
    details,
  });
  req.session.userId = user.id;
  // Opened under the `__Host-` name: never to be taken under the old one (adoptOldSessionCookie).
  if (req.res?.locals.sessionCookie === HOST_SESSION_COOKIE) req.session.hostCookie = true;
  req.session.ip = req.ip;
  req.session.userAgent = req.get('user-agent')?.slice(0, 512);
  req.session.signInMethod = policyKeyOf(details);
  if (details.second_factor) req.session.secondFactor = details.second_factor;
  // A message for the page the login lands on, saved with the session below: set after
  // this save, it would be saved as the answer ends, and express-session sends a
  // redirect's headers before that save completes (a browser can read the session first).
  if (options.flash) req.session.flash = [{ type: 'success', message: options.flash }];
  await promisify((done) => req.session.save(done)).catch(async (error: unknown) => {
    // Not stored (nor its event): the session must not be saved again as the answer
    // ends, which would open it without its event.
    await destroyRequestSession(req).catch(() => undefined);
    throw error;
  });
}

async function destroyRequestSession(req: Request): Promise<void> {
  if (!req.session) return;
  await promisify((done) => req.session.destroy(done));
  req.user = undefined;
}

/**
 * Logout: the session is removed from storage and the cookie cleared. `audit`: the
 * statement deleting the session records `auth.logout` (POST /auth/logout; not when
 * the session was already revoked with the others, which records its own event).
 */
export async function logOutSession(req: Request, res: Response, options: { audit?: boolean } = {}): Promise<void> {
  if (options.audit && req.user && req.session) {
    auditingStore(req)?.recordWithNext(req.sessionID, {
      actor: { id: req.user.id, name: req.user.name },
      ip: req.ip ?? null,
      action: 'auth.logout',
      target: userTarget(req.user),
    });
  }
  await destroyRequestSession(req);
  res.clearCookie(res.locals.sessionCookie ?? SESSION_COOKIE, cookieOptions(req));
}

function writeSessionCookie(ctx: AppContext, req: Request, res: Response, token: string, maxAge: number): void {
  res.cookie(cookieName(ctx.config, req, SESSION_COOKIE), 's:' + signature.sign(token, ctx.config.sessionSecret), cookieOptions(req, { maxAge }));
}

/**
 * Adopts an existing stored session (after external authentication): the token is
 * checked against storage first, so an arbitrary token is refused.
 */
export async function setSessionCookie(ctx: AppContext, req: Request, res: Response, token: string): Promise<boolean> {
  const valid = await validateSession(ctx, token);
  if (!valid) return false;
  writeSessionCookie(ctx, req, res, token, Math.max(0, valid.expiresAt.getTime() - ctx.clock.nowMs()));
  return true;
}

/** Revalidates the token and extends the session and its cookie to 30 days. */
export async function refreshSessionCookie(ctx: AppContext, req: Request, res: Response, token: string): Promise<boolean> {
  const expiresAt = await extendSession(ctx, token);
  if (!expiresAt) return false;
  writeSessionCookie(ctx, req, res, token, REFRESHED_SESSION_LIFETIME_MS);
  return true;
}
