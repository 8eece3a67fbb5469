// Which pages show a media: what the media screen lists under «Utilisée par», read the
// way deleteMedia() decides that a media is in use (an image block of the page naming
// it), so the list and the refusal to delete always agree.
import type { AppContext } from '../../lib/context.js';
import { PAGES_TABLE } from './schema.js';

export interface MediaUsage {
  /** The first pages by title, at most `limit`. */
  pages: Array<{ id: number; title: string }>;
  /** How many pages use it in all. */
  total: number;
}

export async function mediaUsage(ctx: AppContext, mediaId: number, limit = 20): Promise<MediaUsage> {
  const containing = JSON.stringify([{ type: 'image', media_id: mediaId }]);
  // One statement: the count over the matches, the first `limit` of them by title.
  const rows = await ctx
    .db(PAGES_TABLE)
    .whereRaw('blocks @> ?::jsonb', [containing])
    .orderBy([{ column: 'title' }, { column: 'id' }])
    .limit(limit)
    .select<Array<{ id: number; title: string; total: string }>>('id', 'title', ctx.db.raw('count(*) OVER () AS total'));
  return { pages: rows.map(({ id, title }) => ({ id, title })), total: rows.length ? Number(rows[0].total) : 0 };
}
