// The audit log's retention: events older than AUDIT_RETENTION_DAYS are deleted once a
// day, by one process however many run on the database.
//
// A run is claimed by a conditional upsert of the one-row app_audit_prune_state: the
// process whose statement moves last_run_at forward (or creates the row) runs the
// prune; any other finds the row less than a day old (after waiting for the winner's
// transaction, which holds the row) and does nothing. The deletion happens in the same
// transaction, after `app.audit_prune_before` is set for it alone (set_config(…, true)
// is SET LOCAL): the table's trigger lets a DELETE through only then, and only for
// rows older than that time.
import { inTransaction, type AppContext } from '../lib/context.js';

const DAY_MS = 86_400_000;

export interface PruneOutcome {
  /** False: another process (or this one) already ran within the last day. */
  ran: boolean;
  /** Events deleted by this run. */
  removed: number;
}

export async function pruneAuditLog(ctx: AppContext): Promise<PruneOutcome> {
  const now = ctx.clock.now();
  const cutoff = new Date(now.getTime() - ctx.config.auditRetentionDays * DAY_MS);
  return inTransaction(ctx, async (tx) => {
    const { rows } = await tx.db.raw<{ rows: Array<{ id: number }> }>(
      `INSERT INTO app_audit_prune_state (id, last_run_at) VALUES (1, ?)
       ON CONFLICT (id) DO UPDATE SET last_run_at = EXCLUDED.last_run_at
       WHERE app_audit_prune_state.last_run_at <= ?
       RETURNING id`,
      [now, new Date(now.getTime() - DAY_MS)],
    );
    if (rows.length === 0) return { ran: false, removed: 0 };
    await tx.db.raw(`SELECT set_config('app.audit_prune_before', ?, true)`, [cutoff.toISOString()]);
    const removed = await tx.db('app_audit_events').where('at', '<', cutoff).delete();
    return { ran: true, removed };
  });
}
