// Who wrote a page and who changed it last, by name, and when its newest revision (a
// draft's too) was saved and by whom. A deleted account leaves its pages in place with
// the reference emptied (ON DELETE SET NULL): shown as «Compte supprimé».
import type { AppContext } from '../../lib/context.js';
import { lifecycleMessages } from '../auth/messages.js';

export interface PageAuthors {
  author: string;
  updatedBy: string;
  /** When the newest revision was recorded (a draft save, a publication…); null for a page without one. */
  savedAt: Date | null;
  savedBy: string;
}

/** The names behind a page's author_id and updated_by (one statement); undefined for an unknown page. */
export async function pageAuthors(ctx: AppContext, pageId: number): Promise<PageAuthors | undefined> {
  const { rows } = await ctx.db.raw<{
    rows: Array<{ author: string | null; updated_by: string | null; saved_at: Date | null; saved_by: string | null }>;
  }>(
    `SELECT a.name AS author, b.name AS updated_by, COALESCE(r.autosaved_at, r.recorded_at) AS saved_at, c.name AS saved_by
     FROM app_pages p LEFT JOIN app_auth_users a ON a.id = p.author_id LEFT JOIN app_auth_users b ON b.id = p.updated_by
     LEFT JOIN app_page_revisions r ON r.page_id = p.id AND r.number = p.revision
     LEFT JOIN app_auth_users c ON c.id = r.author_id
     WHERE p.id = ?`,
    [pageId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const deleted = lifecycleMessages.deletedAccount;
  return { author: row.author ?? deleted, updatedBy: row.updated_by ?? deleted, savedAt: row.saved_at, savedBy: row.saved_by ?? deleted };
}

/**
 * Whether the page was created by `userId` (its author_id, set once at creation and
 * never changed by an edit); true for an unknown page, so the use case answers its 404.
 */
export async function isPageAuthor(ctx: AppContext, pageId: number, userId: number): Promise<boolean> {
  const row = await ctx.db('app_pages').where({ id: pageId }).first<{ author_id: number | null } | undefined>('author_id');
  return !row || row.author_id === userId;
}

/** Whether a page below `pageId` (at any depth) was created by someone else than `userId`. */
export async function subtreeHasOtherAuthors(ctx: AppContext, pageId: number, userId: number): Promise<boolean> {
  const { rows } = await ctx.db.raw<{ rows: unknown[] }>(
    `WITH RECURSIVE down AS (
       SELECT id, author_id FROM app_pages WHERE parent_id = ?
       UNION ALL
       SELECT p.id, p.author_id FROM app_pages p JOIN down d ON p.parent_id = d.id
     )
     SELECT 1 FROM down WHERE author_id IS DISTINCT FROM ? LIMIT 1`,
    [pageId, userId],
  );
  return rows.length > 0;
}
