// Applies the retention of page revisions while the server runs: every hour each process
// asks; the database lets one of them prune once a day (models/pages/revision-prune.ts).
import type { AppContext } from '../lib/context.js';
import { pruneRevisions } from '../models/pages/revision-prune.js';

const REVISION_PRUNE_CHECK_MS = 3_600_000;

/** Starts the hourly check (the first at once); returns the function that stops it. */
export function startRevisionRetention(ctx: AppContext): () => void {
  const check = () =>
    ctx.background.run('revision prune', async () => {
      const outcome = await pruneRevisions(ctx, ctx.config.revisionsKeepDrafts);
      if (outcome.ran) ctx.logger.info({ removed: outcome.removed, keepDrafts: ctx.config.revisionsKeepDrafts }, 'page revisions pruned');
    });
  check();
  const timer = setInterval(check, REVISION_PRUNE_CHECK_MS);
  // The timer alone never keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
