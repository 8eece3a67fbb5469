// The page form's parent picker: radio buttons for «no parent», the chosen parent and
// the pages a search found (never the page itself nor anything under it). The search
// is a GET form of its own (`parent_q`), so it works without JavaScript: the page form
// comes back with the matches as choices. GET /admin/pages/parent-candidates answers
// the same search in JSON for a script that would fill the choices in place.
import Joi from 'joi';
import { idParam, text } from '../../lib/schema-primitives.js';
import { parentCandidates, placesOf, type PagePlace } from '../../models/pages/admin-tree.js';
import type { AnyCall, Call } from '../../routes/define.js';
import type { TreeOptions } from './admin-screens-tree.js';
import { sectionParentCandidates } from '../../models/pages/section-tree.js';
import { writesInSectionsOnly } from './section-rights.js';

interface ParentChoice {
  id: number;
  title: string;
  path: string;
}

export interface ParentPicker {
  /** Where the search form goes (the same form page). */
  action: string;
  /** Hidden fields the search carries along (the new page's preselected parent). */
  keep: Array<{ name: string; value: string }>;
  q: string;
  /** The parent the form holds, when there is one. */
  current?: ParentChoice;
  /** The search's matches (the current parent left out). */
  matches: ParentChoice[];
  searched: boolean;
  more: boolean;
}

export const parentSearchField = text().trim().max(200).allow('');

export const candidatesQuery = Joi.object<{ q: string; exclude?: number }>({ q: parentSearchField.default(''), exclude: idParam });

/** `parent_q` of the page form's URL; a re-render after a refused POST has none. */
function parentSearchOf(call: AnyCall): string {
  const value: unknown = (call.query as { parent_q?: unknown }).parent_q;
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
}

/** A form value naming a page (`'12'`, 12), else null. */
export function chosenParentId(value: unknown): number | null {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && /^[1-9][0-9]{0,9}$/.test(value) && Number(value) <= 2_147_483_647 ? Number(value) : null;
}

/** The whole tree's pages, or only the caller's sections when it writes through grants only. */
function candidatesFor(call: AnyCall, q: string, exclude: number | null, limit: number) {
  if (writesInSectionsOnly(call)) return sectionParentCandidates(call.ctx, call.origin.userId!, q, exclude, limit);
  return parentCandidates(call.ctx, q, exclude, limit);
}

const choiceOf = (place: PagePlace): ParentChoice => ({ id: place.id, title: place.title, path: place.path });

export interface PickerRequest {
  call: AnyCall;
  action: string;
  keep?: ParentPicker['keep'];
  /** The parent the form holds now. */
  chosen: number | null;
  /** Its place when the caller already read it. */
  chosenPlace?: ParentChoice;
  /** The page being edited: left out of the matches with its descendants. */
  exclude: number | null;
}

export async function parentPicker(options: TreeOptions, request: PickerRequest): Promise<ParentPicker> {
  const { call, chosen, exclude } = request;
  const q = parentSearchOf(call);
  const [known, found] = await Promise.all([
    chosen !== null && request.chosenPlace?.id !== chosen ? placesOf(call.ctx, [chosen]) : Promise.resolve(new Map<number, PagePlace>()),
    q ? candidatesFor(call, q, exclude, options.pickerSize) : Promise.resolve({ items: [], more: false }),
  ]);
  const current = request.chosenPlace?.id === chosen ? request.chosenPlace : chosen !== null ? known.get(chosen) : undefined;
  return {
    action: request.action,
    keep: request.keep ?? [],
    q,
    current: current && { id: current.id, title: current.title, path: current.path },
    matches: found.items.filter((item) => item.id !== chosen).map(choiceOf),
    searched: Boolean(q),
    more: found.more,
  };
}

// GET /admin/pages/parent-candidates?q=&exclude= — the picker's search in JSON.
export async function listParentCandidates(options: TreeOptions, call: Call<Record<string, never>, { q: string; exclude?: number }>): Promise<void> {
  const { q, exclude } = call.query;
  const found = q ? await candidatesFor(call, q, exclude ?? null, options.pickerSize) : { items: [], more: false };
  call.res.json({ items: found.items.map(choiceOf), more: found.more });
}
