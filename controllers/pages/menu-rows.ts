// The menu screen's form as rows: one row per link, `level` 1 for a sub-link of the
// top-level row above it. Fields `label_<n>`, `page_<n>`, `url_<n>`, `level_<n>`; the
// buttons («Monter», «Descendre», «Sous-lien», «Retirer», «Ajouter un lien», a page of
// the search) post the whole form with `action`, and the screen comes back with the
// rows changed, unsaved: the editing works without JavaScript. Pure functions.
import { itemKey, MENU_LIMITS, type MenuLink } from '../../models/pages/menus.js';

export interface MenuRow {
  label: string;
  /** The linked page's id as the form holds it ('' for an address). */
  page: string;
  url: string;
  level: 0 | 1;
}

const ROW_FIELD = /^(label|page|url|level)_(\d{1,3})$/;

/** The rows a posted form (or its echoed values) holds, in order of their numbers. */
export function rowsOfForm(values: Record<string, unknown>): MenuRow[] {
  const byIndex = new Map<number, Partial<Record<string, string>>>();
  for (const [key, value] of Object.entries(values)) {
    const match = ROW_FIELD.exec(key);
    if (!match || typeof value !== 'string') continue;
    const index = Number(match[2]);
    byIndex.set(index, { ...byIndex.get(index), [match[1]]: value });
  }
  const rows: MenuRow[] = [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, fields]) => ({
      label: fields.label ?? '',
      page: /^[1-9][0-9]{0,9}$/.test(fields.page ?? '') ? (fields.page ?? '') : '',
      url: fields.url ?? '',
      level: fields.level === '1' ? 1 : 0,
    }));
  if (rows[0]) rows[0].level = 0;
  return rows.slice(0, MENU_LIMITS.total + 1);
}

export function rowsOfItems(items: MenuLink[]): MenuRow[] {
  const row = (link: MenuLink, level: 0 | 1): MenuRow => ({
    label: link.label ?? '',
    page: link.page_id ? String(link.page_id) : '',
    url: link.url ?? '',
    level,
  });
  return items.flatMap((item) => [row(item, 0), ...item.children.map((child) => row(child, 1))]);
}

const isBlank = (row: MenuRow) => !row.label.trim() && !row.page && !row.url.trim();

/** The rows as the API's items, blank rows left out, and each row's name in a refusal (`items[1].children[0]`). */
export function itemsOfRows(rows: MenuRow[]): { items: MenuLink[]; keys: Array<string | null> } {
  const items: MenuLink[] = [];
  const keys: Array<string | null> = [];
  for (const row of rows) {
    if (isBlank(row)) {
      keys.push(null);
      continue;
    }
    const link: MenuLink = { label: row.label, page_id: row.page ? Number(row.page) : null, url: row.page ? null : row.url, children: [] };
    const parent = items[items.length - 1];
    if (row.level === 1 && parent) {
      keys.push(itemKey(items.length - 1, parent.children.length));
      parent.children.push(link);
    } else {
      keys.push(itemKey(items.length));
      items.push(link);
    }
  }
  return { items, keys };
}

/** Indexes of the rows of the block starting at a top-level row (it and its sub-links). */
function blockAt(rows: MenuRow[], start: number): number {
  let end = start + 1;
  while (end < rows.length && rows[end].level === 1) end += 1;
  return end;
}

function previousTop(rows: MenuRow[], index: number): number {
  for (let i = index - 1; i >= 0; i -= 1) if (rows[i].level === 0) return i;
  return -1;
}

function move(rows: MenuRow[], index: number, direction: -1 | 1): MenuRow[] {
  const next = [...rows];
  const row = rows[index];
  if (row.level === 0) {
    const end = blockAt(rows, index);
    const block = next.slice(index, end);
    if (direction === -1) {
      const before = previousTop(rows, index);
      if (before < 0) return rows;
      next.splice(index, block.length);
      next.splice(before, 0, ...block);
    } else {
      if (end >= rows.length) return rows;
      const afterEnd = blockAt(rows, end);
      next.splice(index, block.length);
      next.splice(afterEnd - block.length, 0, ...block);
    }
    return next;
  }
  // A sub-link moves among its siblings, then into the neighbouring block.
  const target = index + direction;
  if (target < 0 || target >= rows.length) return rows;
  if (direction === -1 && rows[target].level === 0 && previousTop(rows, target) < 0) return rows;
  next.splice(index, 1);
  if (rows[target].level === 1) next.splice(target, 0, row);
  else if (direction === -1) next.splice(target, 0, row);
  else next.splice(index + 1, 0, row);
  return next;
}

/** What a button of the form does to the rows; null for an action the rows do not know. */
export function applyRowAction(rows: MenuRow[], action: string): MenuRow[] | null {
  const match = /^(up|down|remove|indent|outdent):(\d{1,3})$/.exec(action);
  if (!match) return null;
  const index = Number(match[2]);
  if (index >= rows.length) return rows;
  switch (match[1]) {
    case 'up':
      return move(rows, index, -1);
    case 'down':
      return move(rows, index, 1);
    case 'remove': {
      const next = rows.filter((_, i) => i !== index);
      // The sub-links of a removed top-level link go up a level, in place.
      if (rows[index].level === 0) for (let i = index; i < next.length && next[i].level === 1; i += 1) next[i] = { ...next[i], level: 0 };
      if (next[0]) next[0] = { ...next[0], level: 0 };
      return next;
    }
    case 'indent':
      // Only a top-level link without sub-links, under the link above it.
      if (index === 0 || rows[index].level === 1 || rows[index + 1]?.level === 1) return rows;
      return rows.map((row, i) => (i === index ? { ...row, level: 1 } : row));
    default:
      return rows.map((row, i) => (i === index ? { ...row, level: 0 } : row));
  }
}

/** Appends a row while the menu has room. */
export function addRow(rows: MenuRow[], row: MenuRow): MenuRow[] {
  return rows.length >= MENU_LIMITS.total ? rows : [...rows, row];
}
