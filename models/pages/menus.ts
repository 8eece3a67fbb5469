// The site's menus (migration pages/20261127000100_pages_menus): the header's and the
// footer's, each a list of links to a page or to an address, one level of sub-links.
// A menu never edited has no row: the site then shows its built-in navigation. The
// public site reads the menus with its navigation, in the statement that already reads
// a rendered page's freshness (navigation.ts), so a menu costs a page render no
// statement; this file holds the writes and the administration's reads.
import { inTransaction, type AppContext } from '../../lib/context.js';
import { NotFoundError } from '../../lib/errors.js';
import { recordAudit, sourceOfActor, type Actor } from '../audit.js';
import { placesOf } from './admin-tree.js';
import { menuMessages } from './messages.js';
import { fieldError } from './rules.js';
import { PAGES_TABLE } from './schema.js';

export const MENUS_TABLE = 'app_page_menus';

/** The menus a site has; any other name is a 404. */
export const MENU_NAMES = ['header', 'footer'] as const;
export type MenuName = (typeof MENU_NAMES)[number];

export const MENU_LABELS: Record<MenuName, string> = { header: 'Menu de l’en-tête', footer: 'Menu du pied de page' };

/** Limits of one menu: a header holds a dozen links; a hundred is already a site map. */
export const MENU_LIMITS = { items: 30, children: 20, total: 100, label: 100, url: 2000 } as const;

export interface MenuLink {
  /** null: the page's current title. */
  label: string | null;
  page_id: number | null;
  url: string | null;
  /** Always empty below the first level. */
  children: MenuLink[];
}

export interface Menu {
  name: MenuName;
  items: MenuLink[];
  /** False while the menu has never been edited: the site shows its built-in navigation. */
  edited: boolean;
}

export function isMenuName(name: string): name is MenuName {
  return (MENU_NAMES as readonly string[]).includes(name);
}

function menuNamed(name: string): MenuName {
  if (!isMenuName(name)) throw new NotFoundError(menuMessages.notFound);
  return name;
}

/** A stored item as the API gives it, whatever an older row holds. */
function cleanLink(value: unknown, depth: number): MenuLink {
  const item = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  return {
    label: typeof item.label === 'string' && item.label ? item.label : null,
    page_id: typeof item.page_id === 'number' ? item.page_id : null,
    url: typeof item.url === 'string' && item.url ? item.url : null,
    children: depth === 0 && Array.isArray(item.children) ? item.children.map((child) => cleanLink(child, 1)) : [],
  };
}

export function storedItems(value: unknown): MenuLink[] {
  return Array.isArray(value) ? value.map((item) => cleanLink(item, 0)) : [];
}

export async function getMenu(ctx: AppContext, name: string): Promise<Menu> {
  const menu = menuNamed(name);
  const row = await ctx.db(MENUS_TABLE).where({ name: menu }).first('items');
  return { name: menu, items: storedItems(row?.items), edited: row !== undefined };
}

/** Both menus in one statement (the menu screen). */
export async function getMenus(ctx: AppContext): Promise<Record<MenuName, Menu>> {
  const rows = await ctx
    .db(MENUS_TABLE)
    .whereIn('name', [...MENU_NAMES])
    .select('name', 'items');
  const menus = {} as Record<MenuName, Menu>;
  for (const name of MENU_NAMES) {
    const row = rows.find((candidate) => candidate.name === name);
    menus[name] = { name, items: storedItems(row?.items), edited: row !== undefined };
  }
  return menus;
}

/** `items[2]`, `items[2].children[0]`: how the API and the form name an item. */
export function itemKey(index: number, childIndex?: number): string {
  return childIndex === undefined ? `items[${index}]` : `items[${index}].children[${childIndex}]`;
}

function pageIdsOf(items: MenuLink[]): Array<{ id: number; key: string }> {
  const ids: Array<{ id: number; key: string }> = [];
  items.forEach((item, index) => {
    if (item.page_id !== null) ids.push({ id: item.page_id, key: itemKey(index) });
    item.children.forEach((child, childIndex) => {
      if (child.page_id !== null) ids.push({ id: child.page_id, key: itemKey(index, childIndex) });
    });
  });
  return ids;
}

/** Labels trimmed (empty: the page's title), children without children. */
function normalized(items: MenuLink[]): MenuLink[] {
  const link = (item: MenuLink, children: MenuLink[]): MenuLink => ({
    label: item.label?.trim() || null,
    page_id: item.page_id ?? null,
    url: item.page_id ? null : (item.url ?? null),
    children,
  });
  return items.map((item) =>
    link(
      item,
      (item.children ?? []).map((child) => link(child, [])),
    ),
  );
}

/**
 * Replaces the menu (its shape checked at the edge: controllers/pages/menu-schemas.ts).
 * A page it links to must exist, unless the stored menu already links to it (a deleted
 * page's item may stay, flagged on the screen, so that what GET gives PUT takes back).
 */
export async function saveMenu(ctx: AppContext, name: string, input: MenuLink[], actor: Actor | null = null): Promise<Menu> {
  const menu = menuNamed(name);
  const items = normalized(input);
  return inTransaction(ctx, async (tx) => {
    const current = await tx.db(MENUS_TABLE).where({ name: menu }).forUpdate().first('items');
    const known = new Set(pageIdsOf(storedItems(current?.items)).map((link) => link.id));
    const linked = pageIdsOf(items);
    const wanted = [...new Set(linked.map((link) => link.id).filter((id) => !known.has(id)))];
    if (wanted.length) {
      // FOR KEY SHARE: a page checked here cannot be deleted before the menu commits.
      const found = new Set((await tx.db(PAGES_TABLE).whereIn('id', wanted).forKeyShare().select('id')).map((row) => row.id));
      const missing = linked.find((link) => !known.has(link.id) && !found.has(link.id));
      if (missing) throw fieldError(`${missing.key}.page_id`, menuMessages.pageMissing);
    }
    await tx.db.raw(
      `INSERT INTO ${MENUS_TABLE} (name, items, updated_by, updated_at) VALUES (?, ?::jsonb, ?, ?)
       ON CONFLICT (name) DO UPDATE SET items = EXCLUDED.items, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`,
      [menu, JSON.stringify(items), actor?.id ?? null, tx.clock.now()],
    );
    await recordAudit(tx, {
      ...sourceOfActor(actor),
      action: 'menu.updated',
      target: { type: 'menu', id: menu, label: MENU_LABELS[menu] },
      details: { items: items.length, links: items.reduce((count, item) => count + 1 + item.children.length, 0) },
    });
    return { name: menu, items, edited: true };
  });
}

/** Why a page link does not show on the site, if it does not. */
type LinkProblem = 'deleted' | 'private';

export interface ScreenLink extends MenuLink {
  /** The linked page as it is now (title, address), when it exists. */
  page?: { title: string; path: string };
  problem?: LinkProblem;
}

/** The items with their pages' titles and addresses, and why a page link does not show. */
export async function describeLinks(ctx: AppContext, items: MenuLink[]): Promise<Array<ScreenLink & { children: ScreenLink[] }>> {
  const places = await placesOf(
    ctx,
    pageIdsOf(items).map((link) => link.id),
  );
  const describe = (item: MenuLink): ScreenLink => {
    if (item.page_id === null) return item;
    const place = places.get(item.page_id);
    if (!place) return { ...item, problem: 'deleted' };
    return { ...item, page: { title: place.title, path: place.path }, problem: place.publicBranch ? undefined : 'private' };
  };
  return items.map((item) => ({ ...describe(item), children: item.children.map(describe) }));
}
