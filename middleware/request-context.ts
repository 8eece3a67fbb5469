import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      id: string;
    }
    interface Locals {
      /** The row that answered, as declared with its mount path (routes/define.ts): the metrics' route label. */
      routePattern?: string;
      /** Probes (load balancer, orchestrator) log their request line at debug level, not info. */
      quietLog?: boolean;
    }
  }
}

/** The route label of a request that no row, asset or probe took (404s, refusals before any row). */
const UNMATCHED_ROUTE = 'unmatched';

/**
 * Gives each request an id (answered in X-Request-Id and in every error) and, when it
 * ends, writes one log line (method, path without the query string — links carry
 * tokens —, status, duration) and records its duration and SQL statements under its
 * route pattern, never its raw path.
 */
export function requestContext(ctx: { logger: Logger; metrics: Metrics }) {
  const { logger, metrics } = ctx;
  return function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    req.id = randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const tally = metrics.startRequest();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.endRequest(tally, req.method, res.locals.routePattern ?? UNMATCHED_ROUTE, res.statusCode, seconds);
      const line = {
        requestId: req.id,
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        durationMs: Math.round(seconds * 1e4) / 10,
      };
      if (res.locals.quietLog) logger.debug(line, 'request');
      else logger.info(line, 'request');
    });
    metrics.runRequest(tally, next);
  };
}
