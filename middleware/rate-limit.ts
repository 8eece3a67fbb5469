// Per-client-address rate limits (SPEC "Limits"), one named limiter per operation,
// counters shared through PostgreSQL. On the public forms only POSTs count, and a
// session never widens a budget; the API limiter may give logged-in callers more.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { RateLimitedOperation } from '../lib/config.js';
import type { AppContext } from '../lib/context.js';
import { PostgresRateLimitStore } from '../models/rate-limits.js';
import { clientAddressKey, expressRateLimit } from '../lib/client-address.js';
import { rateLimitedError } from '../lib/rate-limit-refusal.js';

export interface RateLimiterOptions {
  /** Methods that count; default POST only (showing a form costs nothing). */
  methods?: string[];
  /** Budget multiplier for a logged-in caller (the API's ×3); never set on the forms. */
  loggedInMultiplier?: number;
  /** Budget override; default the configured budget of the operation. */
  budget?: { max: number; windowMs: number };
  /**
   * Gives the hit back when the input's own rules refuse the submission (a typo: nothing
   * hashed, nothing sent), through `refundRateLimit` (routes/form-failure.ts). Off for
   * `login`, whose every attempt counts.
   */
  refundRefusedInput?: boolean;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** Set once a request has spent a budget that gives refused input back. */
      rateLimitRefund?: () => Promise<void>;
    }
  }
}

/** Gives back the hit a refused input spent, once; nothing when it spent none. */
export async function refundRateLimit(res: Response): Promise<void> {
  const refund = res.locals.rateLimitRefund;
  res.locals.rateLimitRefund = undefined;
  if (refund) await refund();
}

export function createRateLimiter(ctx: AppContext, operation: RateLimitedOperation, options: RateLimiterOptions = {}): RequestHandler {
  const { logger } = ctx;
  const budget = options.budget ?? ctx.config.rateLimits[operation];
  const methods = new Set(options.methods ?? ['POST']);
  const multiplier = options.loggedInMultiplier ?? 1;
  const store = new PostgresRateLimitStore(ctx, operation);
  const makeLimiter = () =>
    expressRateLimit().rateLimit({
      windowMs: budget.windowMs,
      limit: (req: Request) => (multiplier !== 1 && req.user ? budget.max * multiplier : budget.max),
      standardHeaders: false,
      legacyHeaders: false,
      store,
      // Requests without a readable address are not limited (SPEC: suspended, warned once).
      skip: (req: Request) => !methods.has(req.method) || clientAddressKey(ctx, req.ip) === undefined,
      keyGenerator: (req: Request) => clientAddressKey(ctx, req.ip)!,
      handler: (req, _res, next) => {
        // The store returns the window's reset time as stored, so the wait is the real one.
        const resetTime = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
        logger.warn({ operation, requestId: req.id }, 'rate limit reached');
        ctx.metrics.rateLimited(operation);
        next(rateLimitedError(ctx, resetTime ?? new Date(ctx.clock.nowMs() + budget.windowMs)));
      },
      // The address checks are ours (lib/client-address.ts); the library's would flag requests
      // that merely carry an X-Forwarded-For header nobody trusts, and a key generator that
      // reads req.ip (ours groups IPv6 addresses by /64 through the library's ipKeyGenerator,
      // which its source check cannot see). The limiter is made by its first request on
      // purpose (start-up loads the library only when needed), which the creation check
      // reports as an error.
      validate: { xForwardedForHeader: false, trustProxy: false, creationStack: false, keyGeneratorIpFallback: false },
      logger: {
        warn: (message: unknown) => logger.warn({ err: message }, 'rate limiter'),
        error: (message: unknown) => logger.error({ err: message }, 'rate limiter'),
      },
    });
  // Made by the first request this limiter sees.
  let made: RequestHandler | undefined;
  const limiter: RequestHandler = (req, res, next) => (made ??= makeLimiter())(req, res, next);
  if (!options.refundRefusedInput) return limiter;
  return function countRefundably(req: Request, res: Response, next: NextFunction): void {
    void limiter(req, res, (error?: unknown) => {
      // Counted only when the limiter let the request through and did not skip it.
      const counted = (req as Request & { rateLimit?: unknown }).rateLimit !== undefined;
      const key = counted ? clientAddressKey(ctx, req.ip) : undefined;
      if (!error && key !== undefined) res.locals.rateLimitRefund = () => store.decrement(key);
      next(error);
    });
  };
}
