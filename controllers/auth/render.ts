// Shared by the /auth controllers: rendering a page of the card (choosing the
// first-run form while no account exists), answering a form success as HTML or JSON,
// and turning a failure into the same form re-rendered with its message.
import type { NextFunction, Request, Response } from 'express';
import { AppError, RateLimitedError } from '../../lib/errors.js';
import { logger } from '../../lib/logger.js';
import { toAppError, wantsJson } from '../../middleware/error-handler.js';
import { isRegistrationOpen, needsFirstRun } from '../../models/auth/registration.js';
import { authPageMessages, authPageTexts, type AuthPage } from './messages.js';

// Never echoed back into a re-rendered form.
const SECRET_FIELDS = new Set(['password', 'newPassword', 'confirmPassword', '_csrf', '_t', '_hp']);

export interface PageLocals {
  values?: Record<string, unknown>;
  error?: string;
  errorCode?: string;
  fieldErrors?: Record<string, string>;
  message?: string;
  [key: string]: unknown;
}

/**
 * Renders one page of the card. While no account exists every page is the first-run
 * form (SPEC A1 rule 1), whatever the segment.
 */
export async function renderAuthPage(req: Request, res: Response, page: AuthPage, locals: PageLocals = {}, status = 200): Promise<void> {
  const firstRun = await needsFirstRun();
  const shown: AuthPage = firstRun ? 'first-run' : page;
  const texts = authPageTexts[shown];
  res.status(status).render(`auth/${shown}.njk`, {
    page: shown,
    pageTitle: texts.title,
    description: texts.description,
    registrationEnabled: firstRun || (await isRegistrationOpen()),
    passwordRules: authPageMessages.passwordRules,
    next: safeNextPath(req.body?.next ?? req.query.next),
    values: {},
    ...locals,
  });
}

/** A same-site path (one leading slash, not `//` nor `/\`), or undefined. */
export function safeNextPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return undefined;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return undefined;
  // Browsers treat a backslash as a slash and ignore tabs and newlines inside URLs.
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return undefined;
  return value;
}

/** The form's values to show again: everything but secrets, as short strings. */
export function echoedValues(body: unknown): Record<string, string> {
  const values: Record<string, string> = {};
  if (!body || typeof body !== 'object') return values;
  for (const [key, value] of Object.entries(body)) {
    if (!SECRET_FIELDS.has(key) && typeof value === 'string') values[key] = value.slice(0, 500);
  }
  return values;
}

/** A form success: redirect (303) or page for a browser, `{success:true,…}` for JSON. */
export function answerRedirect(req: Request, res: Response, location: string, json: Record<string, unknown> = {}): void {
  if (wantsJson(req)) {
    res.json({ success: true, ...json, redirect: location });
    return;
  }
  res.redirect(303, location);
}

/**
 * Error handler of a form route: the same page again with the message and the
 * user's input (never a password), or `{success:false, error, code?}` for JSON.
 * Internal errors are logged and shown as a generic message.
 */
export function formFailure(page: AuthPage, extra?: (req: Request, error: AppError) => PageLocals) {
  return async function formFailureHandler(error: unknown, req: Request, res: Response, next: NextFunction): Promise<void> {
    if (res.headersSent) return next(error);
    const appError = toAppError(error);
    if (appError.status >= 500) logger.error({ requestId: req.id, err: error, path: req.path }, appError.message);
    if (appError instanceof RateLimitedError) res.setHeader('Retry-After', String(appError.retryAfterSeconds));
    if (wantsJson(req)) {
      res.status(appError.status).json({
        success: false,
        error: appError.message,
        code: appError.code,
        ...(appError.details ? { details: appError.details } : {}),
      });
      return;
    }
    const fieldErrors: Record<string, string> = {};
    for (const detail of appError.details ?? []) fieldErrors[detail.field] ??= detail.message;
    await renderAuthPage(
      req,
      res,
      page,
      { values: echoedValues(req.body), error: appError.message, errorCode: appError.code, fieldErrors, ...extra?.(req, appError) },
      appError.status,
    );
  };
}
