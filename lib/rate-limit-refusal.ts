// The refusal of a spent rate-limit budget, the same from the limiter middleware and
// from the use cases that count a budget of their own (current password, second step).
import type { AppContext } from './context.js';
import { RateLimitedError } from './errors.js';
import { rateLimitMessages } from './messages.js';

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
function secondsUntil(ctx: AppContext, resetAt: Date): number {
  return Math.max(1, Math.ceil((resetAt.getTime() - ctx.clock.nowMs()) / 1000));
}

/**
 * The refusal of a spent budget: 429, Retry-After from the window's real reset time,
 * and a message saying how long to wait. `subject` says whose budget is spent.
 */
export function rateLimitedError(ctx: AppContext, resetAt: Date, subject: 'address' | 'account' = 'address'): RateLimitedError {
  const seconds = secondsUntil(ctx, resetAt);
  return new RateLimitedError(rateLimitMessages.tooMany(subject, waitText(seconds)), seconds);
}
