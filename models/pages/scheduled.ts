// The statements of scheduled publishing (services/scheduled-publishing.ts): which pages
// are due, the claim that hands each due page to exactly one process, and the clearing
// of a schedule the rules refuse.
import type { AppContext } from '../../lib/context.js';
import type { Actor } from '../audit.js';
import { PAGES_TABLE } from './schema.js';

/** A due page and who scheduled it (its publication is recorded as theirs). */
export interface DuePage {
  id: number;
  /** Whoever scheduled it, without an address (nobody asked just now); null when unknown. */
  actor: Actor | null;
}

/** Whether any page is due at `now`: one indexed read, the whole cost of a second with nothing due. */
export async function anyPageDue(ctx: AppContext, now: Date): Promise<boolean> {
  return (await ctx.db(PAGES_TABLE).where('scheduled_at', '<=', now).first('id')) !== undefined;
}

/**
 * Locks up to `limit` due pages that no other transaction holds (FOR UPDATE SKIP
 * LOCKED), oldest schedule first: call it inside the transaction that publishes them.
 */
export async function claimDuePages(tx: AppContext, now: Date, limit: number): Promise<DuePage[]> {
  const rows = await tx
    .db(`${PAGES_TABLE} as p`)
    .leftJoin('app_auth_users as u', 'u.id', 'p.scheduled_by')
    .where('p.scheduled_at', '<=', now)
    .orderBy([{ column: 'p.scheduled_at' }, { column: 'p.id' }])
    .limit(limit)
    .forUpdate('p')
    .skipLocked()
    .select<Array<{ id: number; scheduled_by: number | null; name: string | null }>>(['p.id', 'p.scheduled_by', 'u.name']);
  return rows.map((row) => ({ id: row.id, actor: row.scheduled_by === null ? null : { id: row.scheduled_by, name: row.name ?? '', ip: null } }));
}

/** Drops a page's schedule (its draft stays), without an audit event: the scheduler logs why. */
export async function clearSchedule(tx: AppContext, pageId: number): Promise<void> {
  await tx.db(PAGES_TABLE).where({ id: pageId }).update({ scheduled_at: null, scheduled_by: null });
}
