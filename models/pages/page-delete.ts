// Deleting pages: one page, or with `cascade` its whole subtree in one statement; the
// tree's version moves in the same transaction (the sitemap's validators see deletes).
import { inTransaction, type AppContext } from '../../lib/context.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { recordAudit, sourceOfActor, type Actor } from '../audit.js';
import { pageMessages } from './messages.js';
import { PAGES_TABLE } from './schema.js';
import { bumpTreeVersion } from './tree-state.js';

function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === '23503';
}

/**
 * Deletes a page. With children it answers 409 unless `cascade`, which removes the
 * whole subtree in one statement of one transaction. Returns the number of pages removed.
 */
export async function deletePage(ctx: AppContext, id: number, options: { cascade?: boolean; actor?: Actor | null } = {}): Promise<number> {
  return inTransaction(ctx, async (tx): Promise<number> => {
    const page = await tx.db(PAGES_TABLE).where({ id }).forUpdate().first('id', 'title');
    if (!page) throw new NotFoundError(pageMessages.pageNotFound);
    let removed: number;
    try {
      if (!options.cascade) {
        const child = await tx.db(PAGES_TABLE).where({ parent_id: id }).first('id');
        if (child) throw new ConflictError(pageMessages.hasChildren, { code: 'page_has_children' });
        removed = await tx.db(PAGES_TABLE).where({ id }).delete();
      } else {
        removed = await deleteSubtree(tx, id);
      }
    } catch (error) {
      // A child inserted concurrently after the check still cannot be orphaned.
      if (isForeignKeyViolation(error)) throw new ConflictError(pageMessages.hasChildren, { code: 'page_has_children' });
      throw error;
    }
    await bumpTreeVersion(tx);
    await recordAudit(tx, {
      ...sourceOfActor(options.actor ?? null),
      action: 'page.deleted',
      target: { type: 'page', id, label: page.title },
      details: { cascade: options.cascade ?? false, pages_removed: removed },
    });
    return removed;
  });
}

/** The page and everything under it, in one statement. */
async function deleteSubtree(tx: AppContext, id: number): Promise<number> {
  const result = await tx.db.raw<{ rowCount: number }>(
    `DELETE FROM ${PAGES_TABLE} WHERE id IN (
           WITH RECURSIVE subtree AS (
             SELECT id FROM ${PAGES_TABLE} WHERE id = ?
             UNION ALL
             SELECT p.id FROM ${PAGES_TABLE} p JOIN subtree s ON COALESCE(p.parent_id, 0) = s.id
           ) SELECT id FROM subtree)`,
    [id],
  );
  return result.rowCount;
}
