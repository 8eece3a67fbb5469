// Who has a page open in the editor (issue 23, presence). The editor sends a heartbeat
// every ~20 s; an account is present while its last one is under a minute old, and its
// `since` is when that continuous presence began (a gap of a minute starts it again).
// Presence informs, it never locks: merging protects concurrent edits. The clock is the
// application's (`ctx.clock`), so the tests move time instead of waiting.
import type { AppContext } from '../../lib/context.js';
import { NotFoundError } from '../../lib/errors.js';
import { pageMessages } from './messages.js';

/** How long after its last heartbeat an editor counts as gone. */
const PRESENCE_TTL_MS = 60_000;

export interface PageEditor {
  id: number;
  name: string;
  since: Date;
}

const PRESENCE_TABLE = 'app_page_presence';

function cutoffOf(ctx: AppContext): { now: Date; cutoff: Date } {
  const now = ctx.clock.now();
  return { now, cutoff: new Date(now.getTime() - PRESENCE_TTL_MS) };
}

/**
 * A heartbeat of `userId` on the page (one statement): its row is made or refreshed, its
 * `since` kept while the previous heartbeat is under a minute old; its rows on other
 * pages already gone are deleted on the way, so the table holds what is open, not history.
 * An unknown page is a NotFoundError.
 */
export async function recordPresence(ctx: AppContext, pageId: number, userId: number): Promise<void> {
  const { now, cutoff } = cutoffOf(ctx);
  const { rows } = await ctx.db.raw<{ rows: Array<{ since: Date }> }>(
    `WITH gone AS (
       DELETE FROM ${PRESENCE_TABLE} WHERE user_id = ? AND page_id <> ? AND seen_at <= ?
     )
     INSERT INTO ${PRESENCE_TABLE} (page_id, user_id, since, seen_at)
     SELECT p.id, ?, ?, ? FROM app_pages p WHERE p.id = ?
     ON CONFLICT (page_id, user_id) DO UPDATE SET
       since = CASE WHEN ${PRESENCE_TABLE}.seen_at <= ? THEN excluded.since ELSE ${PRESENCE_TABLE}.since END,
       seen_at = excluded.seen_at
     RETURNING since`,
    [userId, pageId, cutoff, userId, now, now, pageId, cutoff],
  );
  if (!rows.length) throw new NotFoundError(pageMessages.pageNotFound);
}

/** The accounts present on the page but `exceptUserId`, longest present first; an unknown page is a NotFoundError. */
export async function pageEditors(ctx: AppContext, pageId: number, exceptUserId: number | null): Promise<PageEditor[]> {
  const { cutoff } = cutoffOf(ctx);
  const { rows } = await ctx.db.raw<{ rows: Array<{ id: number | null; name: string | null; since: Date | null }> }>(
    `SELECT u.id, u.name, pr.since
     FROM app_pages p
     LEFT JOIN ${PRESENCE_TABLE} pr ON pr.page_id = p.id AND pr.seen_at > ? AND pr.user_id <> ?
     LEFT JOIN app_auth_users u ON u.id = pr.user_id
     WHERE p.id = ?
     ORDER BY pr.since, u.id`,
    [cutoff, exceptUserId ?? 0, pageId],
  );
  if (!rows.length) throw new NotFoundError(pageMessages.pageNotFound);
  return rows.filter((row) => row.id !== null).map((row) => ({ id: row.id!, name: row.name!, since: row.since! }));
}

/** Whether anyone but `userId` has the page open now (an autosave then keeps every revision, for their merges). */
export async function othersPresent(ctx: AppContext, pageId: number, userId: number): Promise<boolean> {
  const { cutoff } = cutoffOf(ctx);
  const row = await ctx.db(PRESENCE_TABLE).where({ page_id: pageId }).andWhereNot({ user_id: userId }).andWhere('seen_at', '>', cutoff).first('user_id');
  return row !== undefined;
}

/** Every page someone but `exceptUserId` has open now, with its editors (the tree's rows). */
export async function editorsByPage(ctx: AppContext, exceptUserId: number | null): Promise<Map<number, PageEditor[]>> {
  const { cutoff } = cutoffOf(ctx);
  const { rows } = await ctx.db.raw<{ rows: Array<{ page_id: number; id: number; name: string; since: Date }> }>(
    `SELECT pr.page_id, u.id, u.name, pr.since
     FROM ${PRESENCE_TABLE} pr JOIN app_auth_users u ON u.id = pr.user_id
     WHERE pr.seen_at > ? AND pr.user_id <> ?
     ORDER BY pr.page_id, pr.since, u.id`,
    [cutoff, exceptUserId ?? 0],
  );
  const byPage = new Map<number, PageEditor[]>();
  for (const row of rows) {
    const editors = byPage.get(row.page_id) ?? [];
    editors.push({ id: row.id, name: row.name, since: row.since });
    byPage.set(row.page_id, editors);
  }
  return byPage;
}
