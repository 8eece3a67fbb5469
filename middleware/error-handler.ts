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
import { logger } from '../lib/logger.js';

export const genericMessages = {
  internal: 'Une erreur inattendue est survenue. Réessayez plus tard.',
  unavailable: 'Le service est momentanément indisponible. Réessayez dans un instant.',
  notFound: 'Page introuvable.',
  invalidJson: 'Le corps de la requête n’est pas un JSON valide.',
  tooLarge: 'La requête est trop volumineuse.',
  unsupportedBody: 'Type de contenu non pris en charge.',
};

/** JSON for the API and for clients that ask for it; HTML pages otherwise. */
export function wantsJson(req: Request): boolean {
  if (req.originalUrl.startsWith('/app/api')) return true;
  return req.accepts(['html', 'json']) === 'json';
}

export function notFound(req: Request, _res: Response, next: NextFunction): void {
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

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const parsed = error && typeof error === 'object' ? fromBodyParser(error as { type?: string }) : undefined;
  if (parsed) return parsed;
  if (isDatabaseUnavailable(error)) return new ServiceUnavailableError(genericMessages.unavailable);
  const internal = new AppError(genericMessages.internal);
  return internal;
}

export function errorHandler(error: unknown, req: Request, res: Response, next: NextFunction): void {
  const appError = toAppError(error);
  if (appError.status >= 500) {
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
}
