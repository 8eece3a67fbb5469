import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../lib/logger.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      id: string;
    }
  }
}

/**
 * Gives each request an id (answered in X-Request-Id and in every error) and writes
 * one log line when it ends: method, path without the query string (links carry
 * tokens), status, duration.
 */
export function requestContext(logger: Logger) {
  return function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
  const started = process.hrtime.bigint();
  req.id = randomUUID();
  res.setHeader('X-Request-Id', req.id);
  res.on('finish', () => {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    logger.info(
      { requestId: req.id, method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, durationMs: Math.round(durationMs * 10) / 10 },
      'request',
    );
  });
  next();
}
}
