// The one place where errors become responses: an AppError keeps its status and its
// message; a database outage is a 503; anything else is a generic 500 whose detail
// goes only to the log, under the request id the client is also given.
import type { NextFunction, Request, Response } from 'express';
import {
  AppError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
  isDatabaseUnavailable,
} from '../lib/errors.js';
import type { AppContext } from '../lib/context.js';
import { noteDatabaseDown } from '../lib/database-outage.js';
import { genericMessages } from '../lib/messages.js';

/** JSON for the API and for clients that ask for it; HTML pages otherwise. */
export function wantsJson(req: Request): boolean {
  if (req.originalUrl.startsWith('/app/api')) return true;
  return req.accepts(['html', 'json']) === 'json';
}

/** The end of a surface: any path or method no row answered is a 404 in its shape. */
export function notFound(_req: Request, _res: Response, next: NextFunction): void {
  next(new NotFoundError(genericMessages.notFound));
}

// body-parser reports its failures as plain errors with a `type`.
function fromBodyParser(error: { type?: string; status?: number }): AppError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new ValidationError(genericMessages.invalidJson, { code: 'invalid_json' });
    case 'entity.too.large':
      return new PayloadTooLargeError(genericMessages.tooLarge);
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new UnsupportedMediaTypeError(genericMessages.unsupportedBody);
    case 'parameters.too.many':
      return new PayloadTooLargeError(genericMessages.tooLarge);
    default:
      return undefined;
  }
}

// Client errors raised inside Express and its parsers (a malformed percent-encoding in
// a path, a missing static file, a corrupt gzip body, a truncated multipart form) carry
// a 4xx `status` or come from busboy with a telling message: they are the client's
// fault, so they keep a 4xx status and never reach the log as an internal error.
const MALFORMED_MULTIPART =
  /^(Unexpected end of (form|multipart data)|Malformed part header|Multipart: Boundary not found|Boundary not found|Part terminated early|Malformed urlencoded form)/i;

function fromClientError(error: { status?: unknown; statusCode?: unknown; message?: unknown }): AppError | undefined {
  const status = typeof error.status === 'number' ? error.status : typeof error.statusCode === 'number' ? error.statusCode : undefined;
  if (status === 404) return new NotFoundError(genericMessages.notFound);
  if (status === 413) return new PayloadTooLargeError(genericMessages.tooLarge);
  if (status === 415) return new UnsupportedMediaTypeError(genericMessages.unsupportedBody);
  if (status !== undefined && status >= 400 && status < 500) {
    const mapped = new ValidationError(genericMessages.badRequest, { code: 'bad_request' });
    mapped.status = status;
    return mapped;
  }
  if (typeof error.message === 'string' && MALFORMED_MULTIPART.test(error.message)) {
    return new ValidationError(genericMessages.badRequest, { code: 'bad_request' });
  }
  return undefined;
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const known = error && typeof error === 'object' ? (fromBodyParser(error) ?? fromClientError(error)) : undefined;
  if (known) return known;
  if (isDatabaseUnavailable(error)) return new ServiceUnavailableError(genericMessages.unavailable);
  return new AppError(genericMessages.internal);
}

/**
 * The one error handler: an AppError's status and message; a database outage is a
 * 503 whose request line is the only log line (the outage itself is logged once when
 * it starts and once when it ends, lib/database-outage.ts); anything else is a generic 500 logged with its
 * stack under the request id the client is also given.
 */
export function createErrorHandler(ctx: AppContext) {
  const { logger } = ctx;
  return function errorHandler(error: unknown, req: Request, res: Response, next: NextFunction): void {
    const appError = toAppError(error);
    if (appError instanceof ServiceUnavailableError && isDatabaseUnavailable(error)) {
      noteDatabaseDown(ctx.memo, logger, error, 'request');
    } else if (appError.status >= 500) {
      logger.error({ requestId: req.id, err: error, path: req.originalUrl.split('?')[0] }, appError.message);
    }
    if (res.headersSent) {
      next(error);
      return;
    }
    if (appError instanceof RateLimitedError) res.setHeader('Retry-After', String(appError.retryAfterSeconds));
    res.status(appError.status);
    if (wantsJson(req)) {
      res.json({
        error: appError.message,
        code: appError.code,
        ...(appError.details ? { details: appError.details } : {}),
        ...appError.body,
        request_id: req.id,
      });
      return;
    }
    res.render('errors/error.njk', {
      status: appError.status,
      message: appError.message,
      requestId: req.id,
      pageTitle: appError.status === 404 ? 'Page introuvable' : 'Erreur',
    });
  };
}
