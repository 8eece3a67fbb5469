// The public site's navigation: the header's menu once it has been edited
// (models/pages/menus.ts); until then the home page, then the public root pages in the
// tree's order (title, then id, as the admin tree and the child lists order siblings),
// the home page (the chosen one, else «accueil») being the home link itself; and the footer's menu. Every rendered
// page shows them, so they are read in the statement that already reads the rendered
// page's freshness (the tree's last write, the media's): a page fill costs no statement
// more, a cached hit none (the navigation is inside the cached HTML). Cached answers that show it carry the tag
// `nav`, sent when a root page is created, moved, renamed, retitled, made private or
// deleted, when a menu changes, and when a page a menu links to (or an ancestor of it)
// changes its place, address, visibility or title, or is deleted (migration
// pages/20261127000100_pages_menus). Pages for members are never in it (the navigation is
// part of every shared, cached page); a change of access drops every cached answer.
import type { AppContext } from '../../lib/context.js';
import { HOME_PAGE_ID_SQL } from './public.js';
import { MEDIA_TABLE, PAGES_TABLE } from './schema.js';
import { TREE_STATE_TABLE } from './tree-state.js';
import { MENUS_TABLE, storedItems, type MenuLink } from './menus.js';

/** Root pages shown in the header; a site with more puts the rest under sections. */
export const NAVIGATION_MAX = 12;

export interface NavigationLink {
  id: number | null;
  title: string;
  url: string;
  /** A menu's sub-links (one level). */
  children?: NavigationLink[];
}

export interface RenderFacts {
  /** Latest of the tree's last write and of the shown media's (Last-Modified). */
  changedAt?: Date;
  /** The header: its menu once edited, else the home link then the public root pages. */
  navigation: NavigationLink[];
  /** The footer's menu; null while it has never been edited (the footer shows its home link). */
  footer: NavigationLink[] | null;
}

const HOME_LINK_TITLE = 'Accueil';

/** A linked page the site shows: its current title and public address. */
type LinkedPage = [number, string, string];

/**
 * A menu as the site shows it: a page link takes the page's current title and address
 * and drops out while the page (or an ancestor) is private or once it is deleted; its
 * sub-links then move up in its place, so that public pages stay reachable.
 */
function siteMenu(items: MenuLink[], pages: Map<number, LinkedPage>): NavigationLink[] {
  const link = (item: MenuLink): NavigationLink | null => {
    if (item.page_id === null) return item.url ? { id: null, title: item.label ?? item.url, url: item.url } : null;
    const page = pages.get(item.page_id);
    return page ? { id: page[0], title: item.label ?? page[1], url: page[2] } : null;
  };
  const links: NavigationLink[] = [];
  for (const item of items) {
    const children = item.children.map(link).filter((child): child is NavigationLink => child !== null);
    const shown = link(item);
    if (shown) links.push(children.length ? { ...shown, children } : shown);
    else links.push(...children);
  }
  return links;
}

/**
 * The navigation, the menus (their part read by `app_page_menus_render`, whose plans
 * PostgreSQL keeps: migration pages/20261127000300_pages_menus_render) and the freshness
 * of a page being rendered, in one
 * statement, read after the page itself so the time is never older than what was read.
 * The root pages are read only while the header's menu has never been edited.
 */
export async function readRenderFacts(ctx: AppContext, mediaIds: readonly number[], chosenHomeId: number | null): Promise<RenderFacts> {
  const { rows } = await ctx.db.raw<{
    rows: Array<{
      tree: Date | null;
      media: Date | null;
      roots: Array<[number, string, string]> | null;
      menus: Record<string, unknown> | null;
      menus_at: Date | null;
      linked: LinkedPage[] | null;
    }>;
  }>(
    `WITH home AS (SELECT ${HOME_PAGE_ID_SQL} AS id)
     SELECT (SELECT changed_at FROM ${TREE_STATE_TABLE} WHERE id = 1) AS tree,
            (SELECT max(updated_at) FROM ${MEDIA_TABLE} WHERE id = ANY(?::integer[])) AS media,
            (SELECT json_agg(json_build_array(r.id, r.title, r.slug) ORDER BY r.title, r.id)
               FROM (SELECT p.id, p.title, p.slug FROM ${PAGES_TABLE} p
                     WHERE COALESCE(p.parent_id, 0) = 0 AND p.visibility = 'public' AND NOT p.restricted AND p.id IS DISTINCT FROM (SELECT id FROM home)
                       AND NOT EXISTS (SELECT 1 FROM ${MENUS_TABLE} WHERE name = 'header')
                     ORDER BY COALESCE(p.parent_id, 0), p.title, p.id
                     LIMIT ?) r) AS roots,
            m.menus, m.menus_at, m.linked
     FROM app_page_menus_render((SELECT id FROM home)) m`,
    [chosenHomeId, [...mediaIds], NAVIGATION_MAX],
  );
  const row = rows[0];
  const times = [row?.tree, row?.media, row?.menus_at].filter((time): time is Date => time instanceof Date);
  const pages = new Map((row?.linked ?? []).map((page) => [page[0], page]));
  const menus = row?.menus ?? {};
  let navigation: NavigationLink[];
  if ('header' in menus) navigation = siteMenu(storedItems(menus.header), pages);
  else {
    navigation = [{ id: null, title: HOME_LINK_TITLE, url: '/' }];
    for (const [id, title, slug] of row?.roots ?? []) navigation.push({ id, title, url: `/${slug}` });
  }
  return {
    changedAt: times.length ? new Date(Math.max(...times.map((time) => time.getTime()))) : undefined,
    navigation,
    footer: 'footer' in menus ? siteMenu(storedItems(menus.footer), pages) : null,
  };
}
