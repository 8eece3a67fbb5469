// The per-account budgets of failed sign-in attempts (docs/decisions.md, «Budgets par
// compte»): wrong passwords for an address, wrong second-step codes for an account,
// every client address together. They live in the rate-limit table (app_auth_rate_limits,
// models/rate-limits.ts), like the per-address limits, so that every process of every
// host shares them; each budget is a short window and a daily one. Only failures are
// counted: a person who signs in often never spends anything.
import { createHash } from 'node:crypto';
import type { RateLimitBudget } from '../../lib/config-values.js';
import type { AppContext } from '../../lib/context.js';
import { deleteCounter, incrementCounter, readCounter } from '../rate-limits.js';
import { normalizeEmail } from './users.js';

export type SignInStage = 'password' | 'second_factor';

const PREFIXES: Record<SignInStage, string> = { password: 'login_account:', second_factor: 'second_factor_account:' };
const NOTICE_PREFIX = 'sign_in_notice:';
const DAY_MS = 86_400_000;

/**
 * The budget's subject: for a password, the typed address (hashed: an address is not
 * kept in clear, and an unknown one is counted exactly like an account's, so the
 * refusal says nothing about which addresses exist); for a code, the account.
 */
export function budgetSubject(stage: SignInStage, subject: string | number): string {
  if (stage === 'second_factor') return String(subject);
  return createHash('sha256')
    .update(normalizeEmail(String(subject)))
    .digest('hex')
    .slice(0, 32);
}

function windowsOf(ctx: AppContext, stage: SignInStage): Array<{ suffix: string; budget: RateLimitBudget }> {
  const limits = ctx.config.rateLimits;
  return stage === 'password'
    ? [
        { suffix: '', budget: limits.login_account },
        { suffix: ':day', budget: limits.login_account_daily },
      ]
    : [
        { suffix: '', budget: limits.second_factor_account },
        { suffix: ':day', budget: limits.second_factor_account_daily },
      ];
}

/** The counters of a budget and their maxima, for a statement that reads them alongside something else (models/auth/login.ts). */
export function budgetCounters(ctx: AppContext, stage: SignInStage, subject: string): Array<{ key: string; max: number }> {
  return windowsOf(ctx, stage).map(({ suffix, budget }) => ({ key: PREFIXES[stage] + subject + suffix, max: budget.max }));
}

/** When the spent budget opens again (the latest of its spent windows), or undefined while some is left. */
export async function budgetSpentUntil(ctx: AppContext, stage: SignInStage, subject: string): Promise<Date | undefined> {
  let until: Date | undefined;
  for (const { suffix, budget } of windowsOf(ctx, stage)) {
    const counter = await readCounter(ctx, PREFIXES[stage] + subject + suffix);
    if (counter && counter.totalHits >= budget.max && counter.resetTime && (!until || counter.resetTime > until)) until = counter.resetTime;
  }
  return until;
}

/**
 * Counts one failure in each window. Returns the failures of the short window and
 * whether this one spent a window's last attempt (the trip: once per window, however
 * many processes count at the same time, since each count is one atomic upsert).
 */
export async function spendSignInBudget(ctx: AppContext, stage: SignInStage, subject: string): Promise<{ failures: number; tripped: boolean }> {
  let tripped = false;
  let failures = 0;
  for (const { suffix, budget } of windowsOf(ctx, stage)) {
    const counter = await incrementCounter(ctx, PREFIXES[stage] + subject + suffix, budget.windowMs);
    if (suffix === '') failures = counter.totalHits;
    if (counter.totalHits === budget.max) tripped = true;
  }
  return { failures, tripped };
}

/** A budget given back whole (the password was reset from its emailed link: the owner is in control again). */
export async function clearSignInBudget(ctx: AppContext, stage: SignInStage, subject: string): Promise<void> {
  for (const { suffix } of windowsOf(ctx, stage)) await deleteCounter(ctx, PREFIXES[stage] + subject + suffix);
}

/** True for the first trip of a day for this account and stage: the owner is told once a day, not at every window. */
export async function noticeDue(ctx: AppContext, stage: SignInStage, userId: number): Promise<boolean> {
  const counter = await incrementCounter(ctx, `${NOTICE_PREFIX}${stage}:${userId}`, DAY_MS);
  return counter.totalHits === 1;
}
