// Scheduled publishing: each process checks every second for drafts whose time has
// come and publishes them. The claim (FOR UPDATE SKIP LOCKED, in the transaction that
// publishes) hands each due page to exactly one process however many run, and a page
// published clears its schedule in that same transaction, so nothing is published
// twice. The first check runs at start: a publication that fell due while the server
// was down goes live then. Time is the application clock's.
import { inTransaction, type AppContext } from '../lib/context.js';
import { AppError } from '../lib/errors.js';
import { createPageCatalog, type PageCatalog } from '../models/pages/catalog.js';
import { publishDraft } from '../models/pages/drafts.js';
import { lockTreeMoves } from '../models/pages/pages.js';
import { anyPageDue, claimDuePages, clearSchedule } from '../models/pages/scheduled.js';

export const SCHEDULE_CHECK_MS = 1000;
/** Pages published per transaction; more due pages wait for the next check (a second). */
const SCHEDULE_BATCH = 20;

export interface ScheduledOutcome {
  published: number[];
  /** Due pages whose draft the rules refused (a parent or an image gone): schedule cleared. */
  refused: number[];
}

/**
 * Claims the due pages no other process holds and publishes them, in one transaction.
 * Nothing due (nearly every second): one indexed read, no transaction.
 */
export async function publishDuePages(ctx: AppContext, catalog: PageCatalog = createPageCatalog(), limit = SCHEDULE_BATCH): Promise<ScheduledOutcome> {
  const now = ctx.clock.now();
  if (!(await anyPageDue(ctx, now))) return { published: [], refused: [] };
  return inTransaction(ctx, async (tx) => {
    // A publication may move a page: the moves' lock before the rows' (see lockTreeMoves).
    await lockTreeMoves(tx);
    const due = await claimDuePages(tx, now, limit);
    const outcome: ScheduledOutcome = { published: [], refused: [] };
    for (const page of due) {
      // Recorded as the work of whoever scheduled it.
      try {
        await inTransaction(tx, (savepoint) => publishDraft(savepoint, page.id, page.actor, undefined, catalog, { scheduled: true }));
        outcome.published.push(page.id);
      } catch (error) {
        // A rule refusal would be refused again every second: the schedule is dropped
        // (the draft stays) and the log says why. Anything else (the database) is retried.
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        await clearSchedule(tx, page.id);
        ctx.logger.warn({ pageId: page.id, reason: error.message }, 'scheduled publication refused: schedule cleared, draft kept');
        outcome.refused.push(page.id);
      }
    }
    return outcome;
  });
}

export interface SchedulerOptions {
  intervalMs?: number;
  catalog?: PageCatalog;
}

/**
 * Starts the checks (the first at once); returns the function that stops them. A
 * check still running when the next one is due is not doubled; the one in flight at
 * stop is waited for by the context's close (ctx.background).
 */
export function startScheduledPublishing(ctx: AppContext, options: SchedulerOptions = {}): () => void {
  const { intervalMs = SCHEDULE_CHECK_MS, catalog = createPageCatalog() } = options;
  let running = false;
  let stopped = false;
  const check = () => {
    if (running || stopped) return;
    running = true;
    ctx.background.run('scheduled publishing', async () => {
      try {
        const { published } = await publishDuePages(ctx, catalog);
        if (published.length) ctx.logger.info({ pages: published }, 'scheduled pages published');
      } finally {
        running = false;
      }
    });
  };
  check();
  const timer = setInterval(check, intervalMs);
  // The timer alone never keeps the process alive.
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
