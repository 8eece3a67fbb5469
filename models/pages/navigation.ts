// The public site's navigation: the header's menu once it has been edited
// (models/pages/menus.ts); until then the home page, then the public root pages in the
// tree's order (title, then id, as the admin tree and the child lists order siblings),
// the home page (the chosen one, else «accueil») being the home link itself; and the footer's menu. Every rendered
// page shows them; with the tree's last write (the page's freshness) they are kept in
// memory while this process hears every change (readRenderFacts), so a page fill reads
// the page itself and nothing else once they are held, and a cached hit reads nothing
// (the navigation is inside the cached HTML). Cached answers that show it carry the tag
// `nav`, sent when a root page is created, moved, renamed, retitled, made private or
// deleted, when a menu changes, and when a page a menu links to (or an ancestor of it)
// changes its place, address, visibility or title, or is deleted (migration
// pages/20261127000100_pages_menus). Pages for members are never in it (the navigation is
// part of every shared, cached page); a change of access drops every cached answer.
import type { AppContext } from '../../lib/context.js';
import { HOME_PAGE_ID_SQL } from './public.js';
import { MEDIA_TABLE, PAGES_TABLE } from './schema.js';
import { TREE_STATE_TABLE } from './tree-state.js';
import { MEDIA_TAG_PREFIX, NAVIGATION_TAG, PAGES_TAG } from './cache-tags.js';
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

/** The site-wide part of the facts: the same for every page, until the tree or a menu changes. */
interface SiteWideFacts {
  homeId: number | null;
  tree: Date | null;
  roots: Array<[number, string, string]> | null;
  menus: Record<string, unknown> | null;
  menusAt: Date | null;
  linked: LinkedPage[] | null;
}

interface NavigationMemo {
  held?: SiteWideFacts;
  /** Each media's last change (null: no such row), by id, dropped by its `media:<id>` tag. */
  media: Map<number, Date | null>;
  /** Moves at every change or loss: a read started before it is not kept. */
  epoch: number;
}

const NAVIGATION_MEMO = 'pages-navigation';
/** The tags after which the site-wide facts may differ: any page write (it moves the tree's time), a menu, everything. */
const SITE_WIDE_TAGS = new Set([PAGES_TAG, NAVIGATION_TAG]);

/**
 * The site-wide facts are kept in memory per application like the settings
 * (models/settings/store.ts): dropped by every change that can touch them (any page
 * write sends `pages`, a menu `nav`, a settings change `all`) and whenever the listener
 * is lost or listens again, and used only once this process has heard its own writes.
 * An uncached render then runs the page's own statement and, when it shows images, one
 * for their freshness, instead of reading the navigation every time.
 */
function memoOf(ctx: AppContext): NavigationMemo {
  const known = ctx.memo.modules.get(NAVIGATION_MEMO) as NavigationMemo | undefined;
  if (known) return known;
  const memo: NavigationMemo = { epoch: 0, media: new Map() };
  const drop = () => {
    memo.held = undefined;
    memo.media.clear();
    memo.epoch++;
  };
  const events = ctx.publicCache.events;
  events.on('change', (change: { all?: boolean; tags?: readonly string[] }) => {
    if (change.all || change.tags?.some((tag) => SITE_WIDE_TAGS.has(tag))) return drop();
    const media = change.tags?.filter((tag) => tag.startsWith(MEDIA_TAG_PREFIX)) ?? [];
    if (!media.length) return;
    for (const tag of media) memo.media.delete(Number(tag.slice(MEDIA_TAG_PREFIX.length)));
    memo.epoch++;
  });
  events.on('lost', drop);
  events.on('listening', drop);
  ctx.memo.modules.set(NAVIGATION_MEMO, memo);
  return memo;
}

async function readSiteWideFacts(ctx: AppContext, chosenHomeId: number | null): Promise<SiteWideFacts> {
  const memo = memoOf(ctx);
  const cache = ctx.publicCache;
  if ((await cache.ready()) && memo.held?.homeId === chosenHomeId) return memo.held;
  const epoch = memo.epoch;
  const { rows } = await ctx.db.raw<{
    rows: Array<{
      tree: Date | null;
      roots: Array<[number, string, string]> | null;
      menus: Record<string, unknown> | null;
      menus_at: Date | null;
      linked: LinkedPage[] | null;
    }>;
  }>(
    `WITH home AS (SELECT ${HOME_PAGE_ID_SQL} AS id)
     SELECT (SELECT changed_at FROM ${TREE_STATE_TABLE} WHERE id = 1) AS tree,
            (SELECT json_agg(json_build_array(r.id, r.title, r.slug) ORDER BY r.title, r.id)
               FROM (SELECT p.id, p.title, p.slug FROM ${PAGES_TABLE} p
                     WHERE COALESCE(p.parent_id, 0) = 0 AND p.visibility = 'public' AND NOT p.restricted AND p.id IS DISTINCT FROM (SELECT id FROM home)
                       AND NOT EXISTS (SELECT 1 FROM ${MENUS_TABLE} WHERE name = 'header')
                     ORDER BY COALESCE(p.parent_id, 0), p.title, p.id
                     LIMIT ?) r) AS roots,
            m.menus, m.menus_at, m.linked
     FROM app_page_menus_render((SELECT id FROM home)) m`,
    [chosenHomeId, NAVIGATION_MAX],
  );
  const row = rows[0];
  const facts: SiteWideFacts = {
    homeId: chosenHomeId,
    tree: row?.tree ?? null,
    roots: row?.roots ?? null,
    menus: row?.menus ?? null,
    menusAt: row?.menus_at ?? null,
    linked: row?.linked ?? null,
  };
  if (cache.hearsChanges && memo.epoch === epoch) memo.held = facts;
  return facts;
}

/** The latest change of the media an image block names (a statement for those not held), read after the page. */
async function mediaChangedAt(ctx: AppContext, mediaIds: readonly number[]): Promise<Date | null> {
  if (!mediaIds.length) return null;
  const memo = memoOf(ctx);
  const cache = ctx.publicCache;
  const held = (await cache.ready()) ? mediaIds.map((id) => memo.media.get(id)) : [];
  if (held.length && held.every((time) => time !== undefined)) return latestOf(held);
  const epoch = memo.epoch;
  const rows = await ctx
    .db<{ id: number; updated_at: Date }>(MEDIA_TABLE)
    .whereIn('id', [...mediaIds])
    .select('id', 'updated_at');
  const times = new Map<number, Date | null>(mediaIds.map((id) => [id, null]));
  for (const row of rows) times.set(row.id, row.updated_at);
  if (cache.hearsChanges && memo.epoch === epoch) for (const [id, time] of times) memo.media.set(id, time);
  return latestOf([...times.values()]);
}

function latestOf(times: ReadonlyArray<Date | null | undefined>): Date | null {
  const known = times.filter((time): time is Date => time instanceof Date);
  return known.length ? new Date(Math.max(...known.map((time) => time.getTime()))) : null;
}

/**
 * The navigation, the menus (their part read by `app_page_menus_render`, whose plans
 * PostgreSQL keeps: migration pages/20261127000300_pages_menus_render) and the freshness
 * of a page being rendered, read after the page itself so the time is never older than
 * what was read. The root pages are read only while the header's menu has never been
 * edited. The site-wide part comes from memory while this process hears every change.
 */
export async function readRenderFacts(ctx: AppContext, mediaIds: readonly number[], chosenHomeId: number | null): Promise<RenderFacts> {
  const site = await readSiteWideFacts(ctx, chosenHomeId);
  const media = await mediaChangedAt(ctx, mediaIds);
  const times = [site.tree, media, site.menusAt].filter((time): time is Date => time instanceof Date);
  const pages = new Map((site.linked ?? []).map((page) => [page[0], page]));
  const menus = site.menus ?? {};
  let navigation: NavigationLink[];
  if ('header' in menus) navigation = siteMenu(storedItems(menus.header), pages);
  else {
    navigation = [{ id: null, title: HOME_LINK_TITLE, url: '/' }];
    for (const [id, title, slug] of site.roots ?? []) navigation.push({ id, title, url: `/${slug}` });
  }
  return {
    changedAt: times.length ? new Date(Math.max(...times.map((time) => time.getTime()))) : undefined,
    navigation,
    footer: 'footer' in menus ? siteMenu(storedItems(menus.footer), pages) : null,
  };
}
