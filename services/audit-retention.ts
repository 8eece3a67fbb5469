// Applies the audit log's retention while the server runs: every hour each process
// asks; the database lets one of them prune once a day (models/audit-prune.ts).
import type { AppContext } from '../lib/context.js';
import { pruneAuditLog } from '../models/audit-prune.js';

const AUDIT_PRUNE_CHECK_MS = 3_600_000;

/** Starts the hourly check (the first at once); returns the function that stops it. */
export function startAuditRetention(ctx: AppContext): () => void {
  const check = () =>
    ctx.background.run('audit prune', async () => {
      const outcome = await pruneAuditLog(ctx);
      if (outcome.ran) ctx.logger.info({ removed: outcome.removed, retentionDays: ctx.config.auditRetentionDays }, 'audit log pruned');
    });
  check();
  const timer = setInterval(check, AUDIT_PRUNE_CHECK_MS);
  // The timer alone never keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
