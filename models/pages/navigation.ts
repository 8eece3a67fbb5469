// The public site's navigation: the home page, then the public root pages in the
// tree's order (title, then id, as the admin tree and the child lists order siblings),
// the page «accueil» being the home link itself. Every rendered page shows it, so it is
// read in the statement that already reads the rendered page's freshness (the tree's
// last write, the media's): a page fill costs no statement more, a cached hit none
// (the navigation is inside the cached HTML). Cached answers that show it are dropped
// when a root page is created, moved, renamed, retitled, made private or deleted
// (`navigation` in lib/public-cache.ts).
import type { AppContext } from '../../lib/context.js';
import { HOME_SLUG } from './public.js';
import { MEDIA_TABLE, PAGES_TABLE } from './schema.js';
import { TREE_STATE_TABLE } from './tree-state.js';

/** Root pages shown in the header; a site with more puts the rest under sections. */
export const NAVIGATION_MAX = 12;

export interface NavigationLink {
  id: number | null;
  title: string;
  url: string;
}

export interface RenderFacts {
  /** Latest of the tree's last write and of the shown media's (Last-Modified). */
  changedAt?: Date;
  /** The home link first, then the public root pages. */
  navigation: NavigationLink[];
}

const HOME_LINK_TITLE = 'Accueil';

/**
 * The navigation and the freshness of a page being rendered, in one statement, read
 * after the page itself so the time is never older than what was read.
 */
export async function readRenderFacts(ctx: AppContext, mediaIds: readonly number[]): Promise<RenderFacts> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ tree: Date | null; media: Date | null; roots: Array<[number, string, string]> | null }> }>(
    `SELECT (SELECT changed_at FROM ${TREE_STATE_TABLE} WHERE id = 1) AS tree,
            (SELECT max(updated_at) FROM ${MEDIA_TABLE} WHERE id = ANY(?::integer[])) AS media,
            (SELECT json_agg(json_build_array(r.id, r.title, r.slug) ORDER BY r.title, r.id)
               FROM (SELECT p.id, p.title, p.slug FROM ${PAGES_TABLE} p
                     WHERE COALESCE(p.parent_id, 0) = 0 AND p.visibility = 'public' AND p.slug <> ?
                     ORDER BY COALESCE(p.parent_id, 0), p.title, p.id
                     LIMIT ?) r) AS roots`,
    [[...mediaIds], HOME_SLUG, NAVIGATION_MAX],
  );
  const row = rows[0];
  const times = [row?.tree, row?.media].filter((time): time is Date => time instanceof Date);
  const navigation: NavigationLink[] = [{ id: null, title: HOME_LINK_TITLE, url: '/' }];
  for (const [id, title, slug] of row?.roots ?? []) navigation.push({ id, title, url: `/${slug}` });
  return {
    changedAt: times.length ? new Date(Math.max(...times.map((time) => time.getTime()))) : undefined,
    navigation,
  };
}
