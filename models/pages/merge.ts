// Three-way merge of a page's content: a save based on an older revision (`base`) is
// merged with what the page holds now (`theirs`), field by field and block by block
// (blocks matched by id). Changes on one side only are kept; the same page field, SEO
// key or block field changed differently on both sides is a conflict, and so is a block
// removed on one side and edited on the other. Pure: no statement, no clock.
import type { Block } from './blocks.js';
import type { PageContent } from './revision-store.js';

/** A page field (`title`, `seo.description`…) or a block's field changed both ways. */
export type MergeConflict =
  | { field: string; base: unknown; mine: unknown; theirs: unknown }
  /** `field` absent: the whole block (null where it was removed). */
  | { block_id: string; field?: string; base: unknown; mine: unknown; theirs: unknown };

export interface MergeResult {
  /**
   * The merged content. Where a conflict is, it holds the saver's version (and keeps a
   * block edited on one side and removed on the other): where a person resolving the
   * conflicts starts from, never written as is.
   */
  content: PageContent;
  conflicts: MergeConflict[];
}

const SCALAR_FIELDS = ['title', 'slug', 'parent_id', 'template', 'visibility', 'created_at'] as const;

/** JSON with every object's keys sorted: PostgreSQL's jsonb keeps its own key order, a client another. */
function canonical(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** Values compared as stored: JSON whatever the keys' order for arrays and objects, times for dates. */
export function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a !== undefined && b !== undefined && a !== null && b !== null && new Date(a as Date).getTime() === new Date(b as Date).getTime();
  }
  return canonical(a) === canonical(b);
}

/** One value merged: `ok` with the value, or a conflict. */
function mergeValue(base: unknown, mine: unknown, theirs: unknown): { ok: true; value: unknown } | { ok: false } {
  if (same(mine, theirs)) return { ok: true, value: mine };
  if (same(mine, base)) return { ok: true, value: theirs };
  if (same(theirs, base)) return { ok: true, value: mine };
  return { ok: false };
}

/** Objects merged key by key (SEO, a block's fields); a key absent on a side is undefined there. */
function mergeObject(
  base: Record<string, unknown>,
  mine: Record<string, unknown>,
  theirs: Record<string, unknown>,
  skip: string[],
  conflict: (key: string, values: { base: unknown; mine: unknown; theirs: unknown }) => void,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  const keys = [...new Set([...Object.keys(mine), ...Object.keys(theirs), ...Object.keys(base)])].filter((key) => !skip.includes(key));
  for (const key of keys) {
    const outcome = mergeValue(base[key], mine[key], theirs[key]);
    const value = outcome.ok ? outcome.value : mine[key];
    if (!outcome.ok) conflict(key, { base: base[key], mine: mine[key], theirs: theirs[key] });
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

function idOf(block: Block): string {
  return String(block.id);
}

/** Whether a side moved blocks: the base's blocks it kept are not in the base's order. */
function reordered(base: string[], side: string[]): boolean {
  const kept = new Set(side);
  const baseOrder = base.filter((id) => kept.has(id));
  const inBase = new Set(base);
  const sideOrder = side.filter((id) => inBase.has(id));
  return baseOrder.some((id, index) => id !== sideOrder[index]);
}

/**
 * The merged order: the order of the side that moved blocks (mine when both did: the
 * later save's arrangement wins, nothing is lost by it), then each block only the other
 * side has, placed after the block it followed there.
 */
function mergeOrder(base: string[], mine: string[], theirs: string[], kept: Set<string>): string[] {
  const [lead, other] = reordered(base, mine) || !reordered(base, theirs) ? [mine, theirs] : [theirs, mine];
  const order = lead.filter((id) => kept.has(id));
  for (const [index, id] of other.entries()) {
    if (!kept.has(id) || order.includes(id)) continue;
    let at = 0;
    for (let back = index - 1; back >= 0; back--) {
      const found = order.indexOf(other[back]);
      if (found >= 0) {
        at = found + 1;
        break;
      }
    }
    order.splice(at, 0, id);
  }
  return order;
}

function mergeBlocks(base: Block[], mine: Block[], theirs: Block[], conflicts: MergeConflict[]): Block[] {
  const byId = (blocks: Block[]) => new Map(blocks.map((block) => [idOf(block), block]));
  const [b, m, t] = [byId(base), byId(mine), byId(theirs)];
  const merged = new Map<string, Block>();
  const ids = [...new Set([...m.keys(), ...t.keys(), ...b.keys()])];
  for (const id of ids) {
    const [was, mineBlock, theirBlock] = [b.get(id), m.get(id), t.get(id)];
    if (!mineBlock || !theirBlock) {
      const present = mineBlock ?? theirBlock;
      // Added on one side, or removed on one side (or both).
      if (!was) {
        if (present) merged.set(id, present);
        continue;
      }
      if (!present) continue;
      if (same(present, was)) continue;
      conflicts.push({ block_id: id, base: was, mine: mineBlock ?? null, theirs: theirBlock ?? null });
      merged.set(id, present);
      continue;
    }
    const fields = mergeObject(was ?? {}, mineBlock, theirBlock, ['id'], (field, values) => conflicts.push({ block_id: id, field, ...values }));
    merged.set(id, { ...fields, id } as unknown as Block);
  }
  const order = mergeOrder(base.map(idOf), mine.map(idOf), theirs.map(idOf), new Set(merged.keys()));
  return order.map((id) => {
    const { type, ...rest } = merged.get(id)!;
    return { type, ...rest };
  });
}

/** Merges `mine` (base + the save) with `theirs` (the page now), both from `base`. */
export function mergeContent(base: PageContent, mine: PageContent, theirs: PageContent): MergeResult {
  const conflicts: MergeConflict[] = [];
  const content = { ...theirs };
  const scalars = content as unknown as Record<string, unknown>;
  for (const field of SCALAR_FIELDS) {
    const outcome = mergeValue(base[field], mine[field], theirs[field]);
    scalars[field] = outcome.ok ? outcome.value : mine[field];
    if (!outcome.ok) conflicts.push({ field, base: base[field], mine: mine[field], theirs: theirs[field] });
  }
  content.seo = mergeObject(base.seo ?? {}, mine.seo ?? {}, theirs.seo ?? {}, [], (key, values) => conflicts.push({ field: `seo.${key}`, ...values }));
  content.blocks = mergeBlocks(base.blocks ?? [], mine.blocks ?? [], theirs.blocks ?? [], conflicts);
  return { content, conflicts };
}
