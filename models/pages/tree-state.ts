// The page tree's version: one row that every page write (create, update, move,
// duplicate, delete) moves forward inside its own transaction, with the time of the
// write. What the public site derives from the whole tree (the sitemap) answers
// conditional requests from it in one primary-key read, deletions included.
import type { AppContext } from '../../lib/context.js';

export const TREE_STATE_TABLE = 'app_pages_tree_state';

export interface TreeState {
  /** Moves forward with every write; two states with the same version show the same tree. */
  version: string;
  /** When the tree last changed (the application clock). */
  changedAt: Date;
}

/**
 * Called last in a writing transaction (after the page rows it locks), so writers queue
 * on the row in one order. An emptied table (tests) starts again from version 1.
 */
export async function bumpTreeVersion(tx: AppContext): Promise<void> {
  await tx.db.raw(
    `INSERT INTO ${TREE_STATE_TABLE} AS s (id, version, changed_at) VALUES (1, 1, ?)
     ON CONFLICT (id) DO UPDATE SET version = s.version + 1, changed_at = EXCLUDED.changed_at`,
    [tx.clock.now()],
  );
}

export async function readTreeState(ctx: AppContext): Promise<TreeState> {
  const row = await ctx.db(TREE_STATE_TABLE).where({ id: 1 }).first(['version', 'changed_at']);
  return row ? { version: String(row.version), changedAt: new Date(row.changed_at) } : { version: '0', changedAt: new Date(0) };
}
