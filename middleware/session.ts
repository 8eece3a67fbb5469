// Sessions: read only by the rows that need them (every access but 'public'), never by
// public pages or assets. A request without the cookie costs no query; one with it
// costs the session read plus one query for the user and its permissions (read fresh,
// so a removed permission applies on the next request).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import session from 'express-session';
import signature from 'cookie-signature';
import type { AppContext } from '../lib/context.js';
import { REFRESHED_SESSION_LIFETIME_MS, SESSION_LIFETIME_MS, SiteSessionStore, extendSession, validateSession } from '../models/auth/sessions.js';
import { findSessionUser, type SessionUser } from '../models/auth/users.js';
import { userTarget } from '../models/audit.js';

export const SESSION_COOKIE = 'site.sid';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      user?: SessionUser;
    }
  }
}

/** express-session over the application's session store, then the user loader. */
export function createSessionMiddleware(ctx: AppContext): RequestHandler[] {
  const { config } = ctx;
  const sessionMiddleware = session({
    name: SESSION_COOKIE,
    secret: config.sessionSecret,
    store: new SiteSessionStore(ctx),
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
  return [sessionMiddleware, createSessionUserLoader(ctx)];
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

/** In-process equivalent of SPEC getSession(): the logged-in user of this request, or null. */
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
 * The statement that stores the session records `auth.login` (details: how, e.g. the
 * second factor used), so the event exists exactly when the session does.
 */
export async function logInSession(req: Request, user: { id: number; name: string }, details: Record<string, unknown> = {}): Promise<void> {
  await promisify((done) => req.session.regenerate(done));
  auditingStore(req)?.recordWithNext(req.sessionID, {
    actor: { id: user.id, name: user.name },
    ip: req.ip ?? null,
    action: 'auth.login',
    target: userTarget(user),
    details,
  });
  req.session.userId = user.id;
  req.session.ip = req.ip;
  req.session.userAgent = req.get('user-agent')?.slice(0, 512);
  await promisify((done) => req.session.save(done)).catch(async (error: unknown) => {
    // Not stored (nor its event): the session must not be saved again as the answer
    // ends, which would open it without its event.
    await destroyRequestSession(req).catch(() => undefined);
    throw error;
  });
}

export async function destroyRequestSession(req: Request): Promise<void> {
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
  res.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax' });
}

function writeSessionCookie(ctx: AppContext, req: Request, res: Response, token: string, maxAge: number): void {
  res.cookie(SESSION_COOKIE, 's:' + signature.sign(token, ctx.config.sessionSecret), {
    httpOnly: true,
    sameSite: 'lax',
    secure: req.secure,
    path: '/',
    maxAge,
  });
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
