// Retention of page revisions (REVISIONS_KEEP_DRAFTS): every revision that has been live
// stays, and between two publications only the newest drafts do. Never pruned either: the
// page's pending draft (and so a scheduled one), its live revision, and a revision a
// preview link still names. One process of all runs it, once a day, claimed like the
// audit log's prune (models/audit-prune.ts).
import { inTransaction, type AppContext } from '../../lib/context.js';
import { PAGES_TABLE } from './schema.js';
import { REVISIONS_TABLE } from './revision-store.js';

const DAY_MS = 86_400_000;

export interface RevisionPruneOutcome {
  /** False: a process already pruned within the last day. */
  ran: boolean;
  /** Revisions deleted by this run. */
  removed: number;
}

/**
 * Deletes the drafts beyond the newest `keepDrafts` of each stretch between two
 * publications (the drafts after the last publication are a stretch too). A revision's
 * stretch is the number of published revisions at or after it, counted per page.
 */
export async function pruneRevisions(ctx: AppContext, keepDrafts: number): Promise<RevisionPruneOutcome> {
  const now = ctx.clock.now();
  return inTransaction(ctx, async (tx) => {
    const { rows } = await tx.db.raw<{ rows: Array<{ id: number }> }>(
      `INSERT INTO app_page_revision_prune_state (id, last_run_at) VALUES (1, ?)
       ON CONFLICT (id) DO UPDATE SET last_run_at = EXCLUDED.last_run_at
       WHERE app_page_revision_prune_state.last_run_at <= ?
       RETURNING id`,
      [now, new Date(now.getTime() - DAY_MS)],
    );
    if (rows.length === 0) return { ran: false, removed: 0 };
    const removed = await deleteSurplusDrafts(tx, keepDrafts, now);
    return { ran: true, removed };
  });
}

/** The deletion alone, without the daily claim (tests and the claim's transaction). */
async function deleteSurplusDrafts(ctx: AppContext, keepDrafts: number, now: Date): Promise<number> {
  const result = await ctx.db.raw<{ rowCount: number }>(
    `WITH stretched AS (
       SELECT id, page_id, number, published,
              count(*) FILTER (WHERE published) OVER (PARTITION BY page_id ORDER BY number DESC) AS stretch
         FROM ${REVISIONS_TABLE}
     ), ranked AS (
       SELECT id, page_id, number,
              row_number() OVER (PARTITION BY page_id, stretch ORDER BY number DESC) AS rank
         FROM stretched
        WHERE NOT published
     )
     DELETE FROM ${REVISIONS_TABLE} r
      USING ranked, ${PAGES_TABLE} p
      WHERE r.id = ranked.id
        AND ranked.rank > ?
        AND p.id = ranked.page_id
        AND ranked.number IS DISTINCT FROM p.draft_revision
        AND ranked.number IS DISTINCT FROM p.published_revision
        AND (r.preview_until IS NULL OR r.preview_until <= ?)`,
    [keepDrafts, now],
  );
  return result.rowCount;
}
