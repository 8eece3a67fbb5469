// Per-client-address rate limits (SPEC "Limits"), one named limiter per operation,
// counters shared through PostgreSQL. On the public forms only POSTs count, and a
// session never widens a budget; the API limiter may give logged-in callers more.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type * as ExpressRateLimit from 'express-rate-limit';
import type { RateLimitedOperation } from '../lib/config.js';
import type { AppContext } from '../lib/context.js';
import { RateLimitedError } from '../lib/errors.js';
import { PostgresRateLimitStore } from '../models/rate-limits.js';
import { lazyRequire } from '../lib/lazy-require.js';
import { clientAddressKey } from './client-ip.js';

// Loaded by the first request a limiter counts, not at every start.
export const expressRateLimit = lazyRequire<typeof ExpressRateLimit>('express-rate-limit');

/** A wait of `seconds`, in French: «12 minutes», «1 heure», «1 heure et 30 minutes» (rounded up, at least a minute). */
export function waitText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  const plural = (count: number, word: string) => `${count} ${word}${count > 1 ? 's' : ''}`;
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? plural(hours, 'heure') : `${plural(hours, 'heure')} et ${plural(rest, 'minute')}`;
}

/** Seconds until a window's reset (Retry-After), at least 1. */
export function secondsUntil(ctx: AppContext, resetAt: Date): number {
  return Math.max(1, Math.ceil((resetAt.getTime() - ctx.clock.nowMs()) / 1000));
}

/**
 * The refusal of a spent budget: 429, Retry-After from the window's real reset time,
 * and a message saying how long to wait. `subject` says whose budget is spent.
 */
export function rateLimitedError(ctx: AppContext, resetAt: Date, subject: 'address' | 'account' = 'address'): RateLimitedError {
  const seconds = secondsUntil(ctx, resetAt);
  const who = subject === 'address' ? 'depuis cette adresse' : 'pour ce compte';
  return new RateLimitedError(`Trop de tentatives ${who}. Un nouvel essai sera possible dans ${waitText(seconds)}.`, seconds);
}

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
      skip: (req: Request) => !methods.has(req.method) || clientAddressKey(ctx, req) === undefined,
      keyGenerator: (req: Request) => clientAddressKey(ctx, req)!,
      handler: (req, _res, next) => {
        // The store returns the window's reset time as stored, so the wait is the real one.
        const resetTime = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
        logger.warn({ operation, requestId: req.id }, 'rate limit reached');
        ctx.metrics.rateLimited(operation);
        next(rateLimitedError(ctx, resetTime ?? new Date(ctx.clock.nowMs() + budget.windowMs)));
      },
      // The address checks are ours (client-ip.ts); the library's would flag requests
      // that merely carry an X-Forwarded-For header nobody trusts.
      validate: { xForwardedForHeader: false, trustProxy: false },
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
      const key = counted ? clientAddressKey(ctx, req) : undefined;
      if (!error && key !== undefined) res.locals.rateLimitRefund = () => store.decrement(key);
      next(error);
    });
  };
}
