// Per-client-address rate limits (SPEC "Limits"), one named limiter per operation,
// counters shared through PostgreSQL. On the public forms only POSTs count, and a
// session never widens a budget; the API limiter may give logged-in callers more.
import type { Request, RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { RateLimitedOperation } from '../lib/config.js';
import type { AppContext } from '../lib/context.js';
import { RateLimitedError } from '../lib/errors.js';
import { PostgresRateLimitStore } from '../models/rate-limits.js';
import { clientAddressKey } from './client-ip.js';

export const rateLimitMessage = 'Trop de tentatives depuis cette adresse. Un nouvel essai sera possible dans quelques minutes.';

export interface RateLimiterOptions {
  /** Methods that count; default POST only (showing a form costs nothing). */
  methods?: string[];
  /** Budget multiplier for a logged-in caller (the API's ×3); never set on the forms. */
  loggedInMultiplier?: number;
  /** Budget override; default the configured budget of the operation. */
  budget?: { max: number; windowMs: number };
}

export function createRateLimiter(ctx: AppContext, operation: RateLimitedOperation, options: RateLimiterOptions = {}): RequestHandler {
  const { logger } = ctx;
  const budget = options.budget ?? ctx.config.rateLimits[operation];
  const methods = new Set(options.methods ?? ['POST']);
  const multiplier = options.loggedInMultiplier ?? 1;
  return rateLimit({
    windowMs: budget.windowMs,
    limit: (req: Request) => (multiplier !== 1 && req.user ? budget.max * multiplier : budget.max),
    standardHeaders: false,
    legacyHeaders: false,
    store: new PostgresRateLimitStore(ctx, operation),
    // Requests without a readable address are not limited (SPEC: suspended, warned once).
    skip: (req: Request) => !methods.has(req.method) || clientAddressKey(ctx, req) === undefined,
    keyGenerator: (req: Request) => clientAddressKey(ctx, req)!,
    handler: (req, _res, next) => {
      const resetTime = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - ctx.clock.nowMs()) / 1000)) : Math.ceil(budget.windowMs / 1000);
      logger.warn({ operation, requestId: req.id }, 'rate limit reached');
      next(new RateLimitedError(rateLimitMessage, seconds));
    },
    // The address checks are ours (client-ip.ts); the library's would flag requests
    // that merely carry an X-Forwarded-For header nobody trusts.
    validate: { xForwardedForHeader: false, trustProxy: false },
    logger: {
      warn: (message: unknown) => logger.warn({ err: message }, 'rate limiter'),
      error: (message: unknown) => logger.error({ err: message }, 'rate limiter'),
    },
  });
}
