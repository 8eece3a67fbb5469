// A session that expires while a form is being filled: the POST goes to the login page
// with the way back (`?next=`), and what was typed (never a password, a token, a code or
// a field the form marks secret) is kept, for the account whose session it was, server-side (models/form-drafts.ts) under a token in an HttpOnly cookie, never in a
// URL; after the login the same page shows the form filled again, to be sent once more
// with a fresh CSRF token. The kept form must pass what a form passes: not from another
// site, and its token minted for the session that expired in this browser.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import signature from 'cookie-signature';
import type { AppContext } from '../lib/context.js';
import { readCookie } from '../lib/cookies.js';
import { cookieName, cookieOptions } from '../lib/cookie-names.js';
import { UnauthenticatedError } from '../lib/errors.js';
import { flash } from '../controllers/admin/shell.js';
import type { Csrf } from '../middleware/csrf.js';
import { isCrossSite } from '../middleware/cross-site.js';
import { wantsJson } from '../middleware/error-handler.js';
import { SESSION_COOKIE } from '../middleware/session.js';
import { ownerOfSession } from '../models/auth/sessions.js';
import { knownDeviceOf } from '../controllers/auth/known-device.js';
import { DRAFT_LIFETIME_MS, keepFormDraft, takeFormDraft } from '../models/form-drafts.js';
import { authMessagesForGuards, restoredMessage } from '../lib/messages.js';

const FORM_DRAFT_COOKIE = 'site.form';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** An anonymous form POST let past the area's guard: its row's guard refuses it, and the form is kept. */
      lostSession?: boolean;
      /** A kept form given back to its page after the login (controllers/admin/shell.ts renderAdmin). */
      restoredForm?: { form?: string; values: Record<string, unknown> };
    }
  }
}

/**
 * The area's guard, except for a form POST without a session: that one goes on to its
 * row, whose own guard refuses it in front of the row's form-failure handler, which
 * knows the form (and keeps it).
 */
export function letLostFormsThrough(guard: RequestHandler): RequestHandler {
  return function guardOrLetLostFormThrough(req: Request, res: Response, next: NextFunction): void {
    if (!req.user && req.method === 'POST' && !wantsJson(req) && req.is('application/x-www-form-urlencoded')) {
      res.locals.lostSession = true;
      return next();
    }
    guard(req, res, next);
  };
}

/** After the rows: a lost form no row took is refused as the guard would have. */
export function refuseLostForms(_req: Request, res: Response, next: NextFunction): void {
  next(res.locals.lostSession ? new UnauthenticatedError(authMessagesForGuards.loginRequired) : undefined);
}

/** The session id the browser's cookie names (expired or not), or undefined. */
function sessionIdOfCookie(ctx: AppContext, req: Request): string | undefined {
  const value = readCookie(req, cookieName(ctx.config, req, SESSION_COOKIE));
  if (!value?.startsWith('s:')) return undefined;
  const unsigned = signature.unsign(value.slice(2), ctx.config.sessionSecret);
  return unsigned === false ? undefined : unsigned;
}

/** The page that showed the form: the same-origin Referer inside the area, else the area's start. */
function pageOfForm(ctx: AppContext, req: Request): string {
  const area = req.originalUrl.startsWith('/account') ? '/account' : '/admin';
  const referer = req.get('referer');
  if (!referer) return area;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return area;
  }
  const ours = new Set([new URL(ctx.config.baseUrl).origin, `${req.protocol}://${req.host}`]);
  const path = url.pathname + url.search;
  if (!ours.has(url.origin) || !(path === area || path.startsWith(`${area}/`) || path.startsWith(`${area}?`))) return area;
  return path.length <= 2000 ? path : area;
}

/**
 * Keeps a form refused for its lost session and sends the browser to the login page
 * with the way back. Returns false (nothing kept) when the form does not pass the
 * cross-site and token checks: the caller then answers as before.
 */
export async function keepFormForLogin(
  ctx: AppContext,
  csrf: Csrf,
  req: Request,
  res: Response,
  form: string | undefined,
  fields: Record<string, unknown>,
): Promise<boolean> {
  if (isCrossSite(req, ctx.config.baseUrl)) return false;
  const sessionId = sessionIdOfCookie(ctx, req);
  if (sessionId === undefined || !csrf.tokenOfSession(req, sessionId)) return false;
  // The account whose session expired owns what was typed: it is given back to that
  // account only. Its session row says which, until the prune removes it; then the
  // browser's known-device cookie, set by the same login as the session cookie whose
  // token the form carries (controllers/auth/known-device.ts). Neither: nothing is kept.
  const userId = (await ownerOfSession(ctx, sessionId)) ?? knownDeviceOf(ctx, req);
  if (userId === undefined) return false;
  const page = pageOfForm(ctx, req);
  const token = await keepFormDraft(ctx, { page, form, fields, userId });
  res.cookie(cookieName(ctx.config, req, FORM_DRAFT_COOKIE), token, cookieOptions(req, { maxAge: DRAFT_LIFETIME_MS }));
  res.redirect(303, `/auth/login?next=${encodeURIComponent(page)}`);
  return true;
}

/** On the page a kept form came from, once signed in: the form's values and a message, once. */
export function restoreFormDraft(ctx: AppContext): RequestHandler {
  return async function restoreKeptForm(req: Request, res: Response, next: NextFunction): Promise<void> {
    const name = cookieName(ctx.config, req, FORM_DRAFT_COOKIE);
    const token = req.method === 'GET' && req.user ? readCookie(req, name) : undefined;
    if (!token || !/^[A-Za-z0-9_-]{20,64}$/.test(token)) return next();
    const draft = await takeFormDraft(ctx, token, req.originalUrl, req.user!.id);
    if (!draft) return next();
    res.clearCookie(name, cookieOptions(req));
    res.locals.restoredForm = { form: draft.form, values: draft.fields };
    flash(req, restoredMessage);
    next();
  };
}
