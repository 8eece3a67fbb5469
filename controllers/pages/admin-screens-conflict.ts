// The editor's merge conflict screen. A save from a stale form is merged with what was
// saved since (models/pages/merge.ts); when the same field was changed on both sides,
// the editor shows the merged document with the saver's version in those fields, and
// above it only those fields, each with both versions and a choice. The choice travels
// with the form: `take:<field>` = theirs puts the hidden `theirs:<field>` in its place
// when the form is read again (applyChoices), so nothing needs JavaScript.
import type { Block } from '../../models/pages/blocks.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import type { DraftMergePreview } from '../../models/pages/drafts.js';
import type { MergeConflict } from '../../models/pages/merge.js';
import type { PageContent } from '../../models/pages/revision-store.js';
import { blockValues, storedDocument, type EditorDocument } from './admin-screens-document.js';
import { editorMessages, pageScreenTitles } from './messages.js';

/** One conflicting field as the screen shows it. */
export interface ConflictField {
  label: string;
  /** The form field the choice replaces; absent for a whole block (removed on one side). */
  name?: string;
  mine?: unknown;
  theirs?: unknown;
  note?: string;
}

/** The page fields' names in the form and their labels. */
const PAGE_FIELDS: Record<string, [string, string]> = {
  title: ['title', 'Titre'],
  slug: ['slug', 'Adresse'],
  parent_id: ['parent_id', 'Page parente'],
  template: ['template', 'Modèle'],
  visibility: ['visibility', 'Visibilité'],
  created_at: ['created_at', 'Date de création'],
  'seo.title': ['seo_title', 'Titre pour les moteurs de recherche'],
  'seo.description': ['seo_description', 'Description pour les moteurs de recherche'],
  'seo.image': ['seo_image', 'Image pour les réseaux sociaux'],
  'seo.noindex': ['seo_noindex', 'Masquer aux moteurs de recherche'],
};

/** The fields a choice may replace: the page's and the blocks' content fields, nothing else of the form. */
const CHOOSABLE =
  /^(?:title|slug|parent_id|template|visibility|created_at|seo_title|seo_description|seo_image|seo_noindex|b\.[a-z0-9]{1,16}\.(?!(?:id|type|json)$)[a-z_]{1,32})$/;

/** Replaces each field whose `take:` choice is «theirs» by the other version it carries. */
export function applyChoices(body: Record<string, unknown>): void {
  for (const [key, choice] of Object.entries(body)) {
    if (!key.startsWith('take:') || choice !== 'theirs') continue;
    const name = key.slice('take:'.length);
    const theirs = body[`theirs:${name}`];
    // Present or not: an unchecked box is absent from the body, its other version «on».
    if (typeof theirs === 'string' && CHOOSABLE.test(name)) body[name] = theirs;
  }
}

function blockField(
  catalog: PageCatalog,
  conflict: Extract<MergeConflict, { block_id: string }>,
  document: EditorDocument,
  blocks: Block[],
  mine: PageContent,
  current: PageContent,
): ConflictField | undefined {
  const index = blocks.findIndex((block) => block.id === conflict.block_id);
  if (index < 0) return undefined;
  const key = document.blocks[index].key;
  const find = (content: PageContent) => content.blocks.find((block) => block.id === conflict.block_id);
  const [ours, theirs] = [find(mine), find(current)];
  const type = catalog.blocks.get(blocks[index].type);
  if (conflict.field === undefined || !ours || !theirs) {
    return {
      label: pageScreenTitles.blockField(index + 1, type?.label ?? blocks[index].type),
      note: ours ? editorMessages.blockRemovedByOthers : editorMessages.blockRemovedByYou,
    };
  }
  const label = type?.editor?.fields.find((field) => field.name === conflict.field)?.label ?? conflict.field;
  const value = (block: Block) => blockValues(catalog, block)[conflict.field!] ?? '';
  return { label: pageScreenTitles.blockField(index + 1, label), name: `b.${key}.${conflict.field}`, mine: value(ours), theirs: value(theirs) };
}

/**
 * The conflict screen's document (the merge, the saver's version where it clashes) and
 * its list of conflicting fields. `values` gives a content's page-field values as the form shows them.
 */
export function conflictView(
  catalog: PageCatalog,
  preview: DraftMergePreview,
  submitted: EditorDocument,
  values: (content: PageContent) => Record<string, unknown>,
): { document: EditorDocument; fields: ConflictField[]; mergedWith: string } {
  const { result, mine, current } = preview;
  const document = storedDocument(catalog, values(result.content), result.content.blocks);
  // The submitted blocks keep their keys (what was typed in a field stays under its name);
  // the blocks only the other side has get keys of their own.
  const keys = new Map(submitted.blocks.filter((item) => item.id).map((item) => [item.id, item.key]));
  const taken = new Set(keys.values());
  document.blocks.forEach((item, index) => {
    const own = item.id ? keys.get(item.id) : undefined;
    if (own) {
      item.key = own;
      return;
    }
    let n = index;
    while (taken.has(`m${n}`)) n++;
    item.key = `m${n}`;
    taken.add(item.key);
  });
  const [ourValues, theirValues] = [values(mine), values(current)];
  const fields: ConflictField[] = [];
  for (const conflict of result.conflicts) {
    if ('block_id' in conflict) {
      const field = blockField(catalog, conflict, document, result.content.blocks, mine, current);
      if (field) fields.push(field);
      continue;
    }
    const [name, label] = PAGE_FIELDS[conflict.field] ?? [conflict.field, conflict.field];
    fields.push({ label, name, mine: ourValues[name] ?? '', theirs: theirValues[name] ?? '' });
  }
  return { document, fields, mergedWith: editorMessages.mergedWith(preview.others) };
}
