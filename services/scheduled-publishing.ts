// Scheduled publishing: each process checks every second for drafts whose time has
// come and publishes them. The claim (FOR UPDATE SKIP LOCKED, in the transaction that
// publishes) hands each due page to exactly one process however many run, and a page
// published clears its schedule in that same transaction, so nothing is published
// twice. The first check runs at start: a publication that fell due while the server
// was down goes live then. Time is the application clock's.
import { inTransaction, type AppContext } from '../lib/context.js';
import { AppError } from '../lib/errors.js';
import type { Actor } from '../models/audit.js';
import { createPageCatalog, type PageCatalog } from '../models/pages/catalog.js';
import { publishDraft } from '../models/pages/drafts.js';
import { lockTreeMoves } from '../models/pages/pages.js';
import { PAGES_TABLE } from '../models/pages/schema.js';

export const SCHEDULE_CHECK_MS = 1000;
/** Pages published per transaction; more due pages wait for the next check (a second). */
export const SCHEDULE_BATCH = 20;

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
  if (!(await ctx.db(PAGES_TABLE).where('scheduled_at', '<=', now).first('id'))) return { published: [], refused: [] };
  return inTransaction(ctx, async (tx) => {
    // A publication may move a page: the moves' lock before the rows' (see lockTreeMoves).
    await lockTreeMoves(tx);
    const due = await tx
      .db(`${PAGES_TABLE} as p`)
      .leftJoin('app_auth_users as u', 'u.id', 'p.scheduled_by')
      .where('p.scheduled_at', '<=', now)
      .orderBy([{ column: 'p.scheduled_at' }, { column: 'p.id' }])
      .limit(limit)
      .forUpdate('p')
      .skipLocked()
      .select<Array<{ id: number; scheduled_by: number | null; name: string | null }>>(['p.id', 'p.scheduled_by', 'u.name']);
    const outcome: ScheduledOutcome = { published: [], refused: [] };
    for (const page of due) {
      // Recorded as the work of whoever scheduled it (no address: nobody asked just now).
      const actor: Actor | null = page.scheduled_by === null ? null : { id: page.scheduled_by, name: page.name ?? '', ip: null };
      try {
        await inTransaction(tx, (savepoint) => publishDraft(savepoint, page.id, actor, undefined, catalog, { scheduled: true }));
        outcome.published.push(page.id);
      } catch (error) {
        // A rule refusal would be refused again every second: the schedule is dropped
        // (the draft stays) and the log says why. Anything else (the database) is retried.
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        await tx.db(PAGES_TABLE).where({ id: page.id }).update({ scheduled_at: null, scheduled_by: null });
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
