// When a rendered page last changed: its HTML shows more than its own row (breadcrumbs
// from its ancestors, its sub-pages, its images), so its Last-Modified is the latest of
// the tree's last write (which every page write moves, deletions included) and of the
// media it shows. One statement, read once per cache fill, after the page itself (so the
// time is never older than what was read).
import type { AppContext } from '../../lib/context.js';
import { MEDIA_TABLE } from './schema.js';
import { TREE_STATE_TABLE } from './tree-state.js';

export async function renderedChangedAt(ctx: AppContext, mediaIds: readonly number[]): Promise<Date | undefined> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ tree: Date | null; media: Date | null }> }>(
    `SELECT (SELECT changed_at FROM ${TREE_STATE_TABLE} WHERE id = 1) AS tree,
            (SELECT max(updated_at) FROM ${MEDIA_TABLE} WHERE id = ANY(?::integer[])) AS media`,
    [[...mediaIds]],
  );
  const times = [rows[0]?.tree, rows[0]?.media].filter((time): time is Date => time instanceof Date);
  return times.length ? new Date(Math.max(...times.map((time) => time.getTime()))) : undefined;
}
