// The pages module's counts on the dashboard of /admin: one pass over app_pages.
import type { AppContext } from '../../lib/context.js';

export interface PageCounts {
  total: number;
  /** Public and live: what visitors can read. */
  online: number;
  /** Published as private (a never-published page's live row is private too: it is counted as a draft only). */
  private: number;
  /** With a draft waiting (published or not). */
  drafts: number;
  scheduled: number;
  /** Pages of the first run's sample site still there (services/pages-sample-site.ts). */
  sample: number;
}

export async function pageCounts(ctx: AppContext): Promise<PageCounts> {
  const { rows } = await ctx.db.raw<{ rows: Array<Record<keyof PageCounts, string>> }>(
    `SELECT count(*) AS total,
            count(*) FILTER (WHERE visibility = 'public') AS online,
            count(*) FILTER (WHERE visibility = 'private' AND published_revision IS NOT NULL) AS private,
            count(*) FILTER (WHERE draft_revision IS NOT NULL) AS drafts,
            count(*) FILTER (WHERE scheduled_at IS NOT NULL) AS scheduled,
            count(*) FILTER (WHERE id::text IN (SELECT ref FROM app_pages_sample_content WHERE kind = 'page')) AS sample
     FROM app_pages`,
  );
  const row = rows[0];
  return {
    total: Number(row.total),
    online: Number(row.online),
    private: Number(row.private),
    drafts: Number(row.drafts),
    scheduled: Number(row.scheduled),
    sample: Number(row.sample),
  };
}
