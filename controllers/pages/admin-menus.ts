// The menus, for the administration: GET/PUT /app/api/admin/menus/:name and the screen
// /admin/menus (both menus, each its own form posting to /admin/menus/:name). The
// screen works without JavaScript: every button posts the whole form, and the menu
// comes back with the change made and not yet saved, until «Enregistrer le menu».
// The page picker is a search inside the form whose matches are «Ajouter» buttons.
// Both save through models/pages/menus.ts (saveMenu), after the same joi (menu-schemas.ts).
import Joi from 'joi';
import { NotFoundError } from '../../lib/errors.js';
import { text } from '../../lib/schema-primitives.js';
import { validateValue } from '../../lib/validation.js';
import { parentCandidates } from '../../models/pages/admin-tree.js';
import {
  describeLinks,
  getMenu,
  getMenus,
  isMenuName,
  MENU_LABELS,
  MENU_LIMITS,
  MENU_NAMES,
  saveMenu,
  type MenuLink,
  type MenuName,
} from '../../models/pages/menus.js';
import { menuMessages } from '../../models/pages/messages.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { actorOf } from './admin-call.js';
import type { TreeOptions } from './admin-screens-tree.js';
import { menuBody } from './menu-schemas.js';
import { addRow, applyRowAction, itemsOfRows, rowsOfForm, rowsOfItems, type MenuRow } from './menu-rows.js';
import { menuScreenMessages, pageScreenTitles } from './messages.js';

type NameCall<B = Record<string, never>> = Call<{ name: string }, Record<string, never>, B>;

// GET /app/api/admin/menus/:name
export async function showMenuItems(call: NameCall): Promise<void> {
  const { items } = await getMenu(call.ctx, call.params.name);
  call.res.json({ items });
}

// PUT /app/api/admin/menus/:name {items}
export async function replaceMenuItems(call: NameCall<{ items: MenuLink[] }>): Promise<void> {
  const { items } = await saveMenu(call.ctx, call.params.name, call.body.items, actorOf(call));
  call.res.json({ items });
}

// ---------------------------------------------------------------- the screen

/** The form: its rows (`label_<n>`…), the button pressed and the page search. */
export const menuForm = Joi.object<Record<string, string>>({ action: text().max(40).allow(''), q: text().trim().max(200).allow('') }).pattern(
  /^(label|page|url|level)_\d{1,3}$/,
  text().allow('').max(MENU_LIMITS.url),
);

/** One menu's form as the screen shows it: saved, or being edited (its rows unsaved). */
interface MenuDraft {
  name: MenuName;
  rows: MenuRow[];
  q: string;
  matches: Array<{ id: number; title: string; path: string }>;
  searched: boolean;
  unsaved: boolean;
}

async function menuView(call: AnyCall, name: MenuName, edited: boolean, rows: MenuRow[], draft?: MenuDraft) {
  const { items, keys } = itemsOfRows(rows);
  const described = await describeLinks(call.ctx, items);
  const flat = described.flatMap((item) => [item, ...item.children]);
  let next = 0;
  return {
    name,
    label: MENU_LABELS[name],
    edited,
    rows: rows.map((row, index) => ({ ...row, index, key: keys[index] ?? `row-${index}`, link: keys[index] ? flat[next++] : undefined })),
    q: draft?.q ?? '',
    matches: draft?.matches ?? [],
    searched: draft?.searched ?? false,
    unsaved: draft?.unsaved ?? false,
    canIndent: rows.map((row, index) => index > 0 && row.level === 0 && rows[index + 1]?.level !== 1),
  };
}

async function renderMenus(call: AnyCall, draft: MenuDraft | undefined, locals: FormLocals, status: number): Promise<void> {
  const saved = await getMenus(call.ctx);
  const menus = [];
  for (const name of MENU_NAMES) {
    const own = draft?.name === name ? draft : undefined;
    menus.push(await menuView(call, name, saved[name].edited, own ? own.rows : rowsOfItems(saved[name].items), own));
  }
  await renderAdmin(call, 'admin/menus/edit.njk', { pageTitle: pageScreenTitles.menus, menus, limits: MENU_LIMITS, ...locals }, status);
}

// GET /admin/menus
export function showMenus(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  return renderMenus(call, undefined, locals, status);
}

/** A refused save: the menu as it was posted, with the messages by its rows. */
export function rerenderMenu(call: AnyCall, locals: FormLocals, status: number): Promise<void> {
  const name = (call.params as { name?: string }).name ?? '';
  if (!isMenuName(name)) return renderMenus(call, undefined, locals, status);
  const values = locals.values ?? {};
  const draft: MenuDraft = { name, rows: rowsOfForm(values), q: '', matches: [], searched: false, unsaved: true };
  return renderMenus(call, draft, { ...locals, form: name }, status);
}

// POST /admin/menus/:name — a button of the form: saves, or changes the rows and shows them again.
export async function postMenuForm(options: TreeOptions, call: NameCall<Record<string, string>>): Promise<void> {
  const { name } = call.params;
  if (!isMenuName(name)) throw new NotFoundError(menuMessages.notFound);
  const action = call.body.action ?? 'save';
  let rows = rowsOfForm(call.body);
  if (action === 'save') {
    const { items } = validateValue<{ items: MenuLink[] }>(menuBody, { items: itemsOfRows(rows).items });
    await saveMenu(call.ctx, name, items, actorOf(call));
    return redirectWithFlash(call.req, call.res, '/admin/menus', menuScreenMessages.saved(MENU_LABELS[name]));
  }
  const q = (call.body.q ?? '').trim();
  let matches: MenuDraft['matches'] = [];
  const pageToAdd = /^add-page:([1-9][0-9]{0,9})$/.exec(action)?.[1];
  if (action === 'add-link') rows = addRow(rows, { label: '', page: '', url: '', level: 0 });
  else if (pageToAdd) rows = addRow(rows, { label: '', page: pageToAdd, url: '', level: 0 });
  else if (action === 'search' && q) {
    const found = await parentCandidates(call.ctx, q, null, options.pickerSize);
    matches = found.items.map((place) => ({ id: place.id, title: place.title, path: place.path }));
  } else rows = applyRowAction(rows, action) ?? rows;
  const draft: MenuDraft = { name, rows, q: pageToAdd ? '' : q, matches, searched: action === 'search' && Boolean(q), unsaved: true };
  await renderMenus(call, draft, { form: name }, 200);
}
