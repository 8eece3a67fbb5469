// The one form-failure handler of every HTML area (/auth, /admin, /account). A refusal
// by the rules (validation, anti-bot, rate limit, conflict, a model's 403) re-renders
// the same page with the messages next to their fields and the input kept, by one
// rule: strings only, never a password, a token or a form-control field. Errors that
// happen before the form was reached (the guard, and in /admin the CSRF check) and
// internal errors go on to the site's error handler. JSON clients of a form get
// `{success:false, error, code?, details?}`.
import type { NextFunction, Request, Response } from 'express';
import type { AppContext } from '../lib/context.js';
import { HiddenSubjectError, RateLimitedError, UnauthenticatedError, ValidationError } from '../lib/errors.js';
import { toAppError, wantsJson } from '../middleware/error-handler.js';
import { FORM_TOO_FAST } from '../middleware/anti-bot.js';
import { refundRateLimit } from '../middleware/rate-limit.js';
import type { Csrf } from '../middleware/csrf.js';
import { originOf, type AnyCall, type AnyRoute, type FormLocals, type FormSpec } from './define.js';
import { keepFormForLogin } from './lost-session.js';
import { completeErrorSummary, errorSummaryOf, type ErrorSummary } from './error-summary.js';

const MAX_ECHOED_LENGTH = 5000;

/**
 * The submitted values to show again: strings (and lists of strings), never a secret;
 * `keepPasswords`: the password fields too, for the one re-render of a form refused for
 * having been sent too soon (middleware/anti-bot.ts), whose person typed them a moment ago.
 */
function echoedValues(body: unknown, options: { keepPasswords?: boolean } = {}): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  if (!body || typeof body !== 'object') return values;
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith('_') || /token/i.test(key)) continue;
    if (/password/i.test(key) && !options.keepPasswords) continue;
    if (typeof value === 'string') values[key] = value.slice(0, MAX_ECHOED_LENGTH);
    else if (Array.isArray(value)) values[key] = value.filter((item) => typeof item === 'string').slice(0, 500);
  }
  return values;
}

// A second-step code (a recovery code is a password in all but name), a secret: shown
// again on the form a moment after it was typed, never stored.
const SECRET_FIELD = /(^|_)(codes?|secret|otp|totp)$/i;

/**
 * The values kept server-side while the person logs in again (routes/lost-session.ts):
 * what echoedValues shows again, less any code or secret and the fields the form marks
 * secret.
 */
function keptValues(body: unknown, secret: string[] = []): Record<string, unknown> {
  const values = echoedValues(body);
  for (const key of Object.keys(values)) if (SECRET_FIELD.test(key) || secret.includes(key)) delete values[key];
  return values;
}

/** Marks that the guards passed: errors after this point belong to the form. */
export function formReached(_req: Request, res: Response, next: NextFunction): void {
  res.locals.formReached = true;
  next();
}

/** Which form of the page failed: the spec's name, or read from the call. */
function formNameOf(spec: FormSpec, call: AnyCall): string | undefined {
  return typeof spec.name === 'function' ? spec.name(call) : spec.name;
}

function formFailure(ctx: AppContext, row: AnyRoute, spec: FormSpec, csrf?: Csrf) {
  return async function formFailureHandler(error: unknown, req: Request, res: Response, next: NextFunction): Promise<void> {
    // A form sent after its session expired: kept for after the login (routes/lost-session.ts).
    if (error instanceof UnauthenticatedError && res.locals.lostSession && csrf && !res.headersSent) {
      const call = { ctx, req, res, origin: originOf(req), params: req.params, query: req.query, body: (req.body as unknown) ?? {} };
      if (await keepFormForLogin(ctx, csrf, req, res, formNameOf(spec, call), keptValues(req.body, spec.secret))) return;
    }
    if (res.headersSent || !res.locals.formReached) return next(error);
    const appError = toAppError(error);
    // Input refused by its own rules (joi at the edge, the password policy before any
    // hashing) cost nothing and sent nothing: a person's typo does not spend the budget.
    // Anti-bot refusals and everything past the input's rules keep their hit.
    if (error instanceof ValidationError) await refundRateLimit(res);
    if (appError instanceof RateLimitedError) res.setHeader('Retry-After', String(appError.retryAfterSeconds));
    if (wantsJson(req)) {
      if (appError.status >= 500) ctx.logger.error({ requestId: req.id, err: error, path: req.path }, appError.message);
      res.status(appError.status).json({
        success: false,
        error: appError.message,
        code: appError.code,
        ...(appError.details ? { details: appError.details } : {}),
      });
      return;
    }
    // A lost session is not the form's fault (it goes to the login page); a wrong
    // password is, and shows on the form, as does an email that had to leave and could
    // not (503 mail_failed).
    if ((appError.status >= 500 && appError.code !== 'mail_failed') || appError instanceof UnauthenticatedError || appError instanceof HiddenSubjectError) {
      return next(error);
    }
    const fieldErrors: Record<string, string> = {};
    for (const detail of appError.details ?? []) fieldErrors[detail.field] ??= detail.message;
    const call = { ctx, req, res, origin: originOf(req), params: req.params, query: req.query, body: (req.body as unknown) ?? {} };
    const form = formNameOf(spec, call);
    ctx.logger.debug({ requestId: req.id, code: appError.code, form, path: req.path }, 'form refused');
    const errorSummary = errorSummaryOf(appError.message, appError.details, ctx.site.fieldLabels);
    const values = echoedValues(req.body, { keepPasswords: appError.code === FORM_TOO_FAST });
    const locals: FormLocals = { form, values, error: appError.message, errorCode: appError.code, fieldErrors, errorSummary };
    completeSummaryWhenRendered(req, res, errorSummary);
    await spec.rerender(call, locals, appError.status);
  };
}

/** The page this response renders gets its error summary completed (routes/error-summary.ts). */
function completeSummaryWhenRendered(req: Request, res: Response, summary: ErrorSummary): void {
  if (summary.fields.length === 0) return;
  const render = res.render.bind(res);
  res.render = (view: string, options?: object, callback?: (error: Error, html: string) => void) => {
    render(view, options ?? {}, (error: Error | null, html?: string) => {
      const completed = error || html === undefined ? html : completeErrorSummary(html, summary);
      if (callback) return callback(error!, completed!);
      if (error) return req.next!(error);
      res.send(completed);
    });
  };
}

/** The failure handlers of a row: its form's re-render, when it has a form. */
export function formFailures(ctx: AppContext, csrf?: Csrf) {
  return (row: AnyRoute) => (row.form ? [formFailure(ctx, row, row.form, csrf)] : []);
}
