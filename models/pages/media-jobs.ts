// The durable queue of the media renditions (migration pages/20261129000100): one row
// per media. A process claims the oldest row nobody holds (FOR UPDATE SKIP LOCKED: two
// processes never take the same one) with a lease under a token of its own, renews the
// lease while it works, and marks the row done with the media's new renditions in one
// transaction. A lease that runs out (the process died) lets another process take the
// row again; a row asked for again meanwhile (a new generation) is not marked done.
// Times are the database's: every host's lease is measured on one clock.
import { randomBytes } from 'node:crypto';
import { inTransaction, type AppContext } from '../../lib/context.js';
import type { MediaRow, StoredCrops, StoredRendition } from '../../lib/tables.js';
import { MEDIA_TABLE } from './schema.js';

const JOBS_TABLE = 'app_pages_media_jobs';
/** Claims of a row that fails, after which it is left alone (its last error kept). */
const MAX_ATTEMPTS = 5;

export interface RenditionJob {
  mediaId: number;
  generation: number;
  token: string;
  attempts: number;
}

/** Asks for the renditions and crops of a media (new, or its focal point moved): in the caller's transaction. */
export async function requestRenditions(ctx: AppContext, mediaId: number): Promise<void> {
  await ctx.db.raw(
    `INSERT INTO ${JOBS_TABLE} (media_id) VALUES (?)
     ON CONFLICT (media_id) DO UPDATE SET generation = ${JOBS_TABLE}.generation + 1, requested_at = CURRENT_TIMESTAMP, done_at = NULL, attempts = 0, last_error = NULL`,
    [mediaId],
  );
}

/** Takes the oldest row due (never leased, or its lease over) for `leaseMs`; undefined when there is none. */
export async function claimRenditionJob(ctx: AppContext, leaseMs: number): Promise<RenditionJob | undefined> {
  const token = randomBytes(16).toString('hex');
  const { rows } = await ctx.db.raw<{ rows: Array<{ media_id: number; generation: number; attempts: number }> }>(
    `UPDATE ${JOBS_TABLE} SET lease_token = ?, leased_until = CURRENT_TIMESTAMP + ? * interval '1 millisecond', attempts = attempts + 1
     WHERE media_id = (
       SELECT media_id FROM ${JOBS_TABLE}
       WHERE done_at IS NULL AND attempts < ? AND (leased_until IS NULL OR leased_until < CURRENT_TIMESTAMP)
       ORDER BY requested_at, media_id LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING media_id, generation, attempts`,
    [token, leaseMs, MAX_ATTEMPTS],
  );
  const row = rows[0];
  return row ? { mediaId: row.media_id, generation: row.generation, token, attempts: row.attempts } : undefined;
}

/** Extends the lease; false when the row is no longer this claim's (taken again after it ran out, or the media deleted). */
export async function renewLease(ctx: AppContext, job: RenditionJob, leaseMs: number): Promise<boolean> {
  const count = await ctx
    .db(JOBS_TABLE)
    .where({ media_id: job.mediaId, lease_token: job.token })
    .update({ leased_until: ctx.db.raw("CURRENT_TIMESTAMP + ? * interval '1 millisecond'", [leaseMs]) });
  return count > 0;
}

export interface RenditionsMade {
  width: number;
  height: number;
  renditions: StoredRendition[];
  crops: StoredCrops;
}

/**
 * Records what was made on the media row and marks the claim done (unless asked for
 * again since: then only the lease is dropped, and the next claim makes the crops of the
 * new focal point). Returns the row as it was, or undefined when the media is gone or
 * the claim is no longer this one (its files are then the caller's to remove).
 */
export async function completeRenditions(ctx: AppContext, job: RenditionJob, made: RenditionsMade): Promise<MediaRow | undefined> {
  return inTransaction(ctx, async (tx) => {
    const claim = await tx.db(JOBS_TABLE).where({ media_id: job.mediaId, lease_token: job.token }).forUpdate().first(['generation']);
    const before: MediaRow | undefined = claim ? await tx.db(MEDIA_TABLE).where({ id: job.mediaId }).forUpdate().first() : undefined;
    if (!claim || !before) return undefined;
    await tx
      .db(MEDIA_TABLE)
      .where({ id: job.mediaId })
      .update({ width: made.width, height: made.height, renditions: JSON.stringify(made.renditions), crops: JSON.stringify(made.crops) });
    const done = claim.generation === job.generation;
    await tx
      .db(JOBS_TABLE)
      .where({ media_id: job.mediaId })
      .update({ lease_token: null, leased_until: null, last_error: null, ...(done ? { done_at: tx.db.fn.now() } : { attempts: 0 }) });
    return before;
  });
}

/** A failed attempt: the row waits a little longer after each one, then is left with its error. */
export async function failRenditions(ctx: AppContext, job: RenditionJob, error: string): Promise<void> {
  await ctx
    .db(JOBS_TABLE)
    .where({ media_id: job.mediaId, lease_token: job.token })
    .update({
      lease_token: null,
      leased_until: ctx.db.raw("CURRENT_TIMESTAMP + ? * interval '1 second'", [10 * job.attempts]),
      last_error: error.slice(0, 1000),
    });
}

/** Work that cannot be done at all (the original is gone): done, with the reason. */
export async function abandonRenditions(ctx: AppContext, job: RenditionJob, reason: string): Promise<void> {
  await ctx
    .db(JOBS_TABLE)
    .where({ media_id: job.mediaId, lease_token: job.token })
    .update({ lease_token: null, leased_until: null, last_error: reason, done_at: ctx.db.fn.now() });
}

/** Gives the claim back at once (the process stops): the next process takes it without waiting for the lease. */
export async function releaseRenditions(ctx: AppContext, job: RenditionJob): Promise<void> {
  await ctx
    .db(JOBS_TABLE)
    .where({ media_id: job.mediaId, lease_token: job.token })
    .update({ lease_token: null, leased_until: null, attempts: ctx.db.raw('greatest(attempts - 1, 0)') });
}
