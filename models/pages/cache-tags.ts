// The pages module's public cache tags: what its answers show, as the opaque tags the
// public cache drops an answer by (lib/public-cache.ts), and what its triggers NOTIFY
// (migration pages/20261126002000_pages_public_cache_tags computes the same tags):
//   page:<id>   the page's content (any change of the page);
//   tree:<id>   the page's place, address or visibility: an answer about the page or a
//               page under it (its ancestors' ids are in its tags);
//   list:<id>   the child list of a parent (0 = the root);
//   media:<id>  a media row's data;
//   pages       anything derived from the whole tree (the sitemap): any page change;
//   nav         the navigation (the root pages' titles and addresses);
//   redirects   a redirect row's answer (301, 410).
// A change of place, address or visibility, and any change of the redirects, also
// sends the cache's UNKNOWN_PATHS_TAG: a path remembered as unknown may now answer.
export const PAGES_TAG = 'pages';
export const NAVIGATION_TAG = 'nav';
export const MEDIA_TAG_PREFIX = 'media:';
const REDIRECTS_TAG = 'redirects';

/** What a public answer of the module shows. */
export interface PageAnswerShows {
  /** The page whose content it is. */
  page?: number;
  /** The page, or the listed parent, and its ancestors. */
  pages: readonly number[];
  /** Parents (0 = the root) whose child list it shows. */
  lists: readonly number[];
  /** Media rows whose data it shows. */
  media: readonly number[];
  /** Derived from the whole tree (the sitemap). */
  wholeTree?: boolean;
  /** Shows the site's navigation. */
  navigation?: boolean;
  /** A redirect row's answer. */
  redirect?: boolean;
}

export function pageCacheTags(shows: PageAnswerShows): string[] {
  const tags: string[] = [];
  if (shows.page !== undefined) tags.push(`page:${shows.page}`);
  for (const id of shows.pages) tags.push(`tree:${id}`);
  for (const id of shows.lists) tags.push(`list:${id}`);
  for (const id of shows.media) tags.push(`${MEDIA_TAG_PREFIX}${id}`);
  if (shows.wholeTree) tags.push(PAGES_TAG);
  if (shows.navigation) tags.push(NAVIGATION_TAG);
  if (shows.redirect) tags.push(REDIRECTS_TAG);
  return tags;
}
