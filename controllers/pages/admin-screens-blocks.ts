// The block editor without JavaScript: one form per block, and forms to add, move and
// remove blocks. Each action goes through editPageBlocks, which compares the version
// (updated_at) the form was rendered from on the locked row, in the transaction that
// writes, so an index never lands on a block that moved meanwhile. The forms of each
// type come from the catalog's block types (models/pages/blocks.ts).
import Joi from 'joi';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { text } from '../../lib/schema-primitives.js';
import { validateValue } from '../../middleware/validate.js';
import type { Block } from '../../models/pages/blocks.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { editPageBlocks } from '../../models/pages/pages.js';
import type { Call, FormLocals } from '../../routes/define.js';
import { redirectWithFlash } from '../admin/shell.js';
import { actorOf } from './admin-call.js';

export const blockScreenMessages = {
  added: 'Le bloc est ajouté.',
  saved: 'Le bloc est enregistré.',
  moved: 'Le bloc est déplacé.',
  removed: 'Le bloc est supprimé.',
  unknownType: 'Ce type de bloc n’existe pas.',
  noBlock: 'Ce bloc n’existe plus.',
} as const;

const version = text().max(40).required();
export const addBlockForm = Joi.object<{ version: string; type: string }>({ version, type: text().max(64).allow('').default('') });
export const blockForm = Joi.object<{ version: string }>({ version });
export const moveBlockForm = Joi.object<{ version: string; direction: 'up' | 'down' }>({ version, direction: text().valid('up', 'down').required() });

type BlockCall<B> = Call<{ id: number; index: number }, Record<string, never>, B>;

/** Applies `edit` to the page's blocks, refused when the page moved on since the form's version. */
function editBlocks(catalog: PageCatalog, call: Call<{ id: number }, Record<string, never>, { version: string }>, edit: (blocks: Block[]) => Block[]) {
  return editPageBlocks(call.ctx, call.params.id, call.body.version, edit, actorOf(call), catalog);
}

/** The types the editor can add: those with an editor. */
export function blockTypeOptions(catalog: PageCatalog) {
  return catalog.blocks
    .list()
    .filter((type) => type.editor)
    .map((type) => ({ value: type.type, label: type.label }));
}

// A model's refusal names the block’s field as `blocks.i.name`; its form shows `name`.
function fieldErrorsOf(index: number, fieldErrors: Record<string, string> = {}): Record<string, string> {
  const prefix = `blocks.${index}.`;
  const mine: Record<string, string> = {};
  for (const [field, message] of Object.entries(fieldErrors)) mine[field.startsWith(prefix) ? field.slice(prefix.length) : field] = message;
  return mine;
}

/** What the edit screen shows for each block: its form (when its type has one) and its values. */
export function blockItems(catalog: PageCatalog, blocks: Block[], locals: FormLocals) {
  return (Array.isArray(blocks) ? blocks : []).map((block, index) => {
    const type = catalog.blocks.get(block.type);
    const editor = type?.editor;
    const mine = locals.form === `block-${index}`;
    return {
      index,
      block,
      form: editor ? { label: type.label, fields: editor.fields } : undefined,
      values: mine ? locals.values : (editor?.values?.(block) ?? block),
      fieldErrors: mine ? fieldErrorsOf(index, locals.fieldErrors) : {},
      error: mine ? locals.error : undefined,
    };
  });
}

function indexIn(blocks: Block[], index: number): number {
  if (index >= blocks.length) throw new NotFoundError(blockScreenMessages.noBlock);
  return index;
}

function editPath(id: number, anchor: string): string {
  return `/admin/pages/${id}#${anchor}`;
}

// POST /admin/pages/:id/blocks {type, version}
export async function addBlock(catalog: PageCatalog, call: Call<{ id: number }, Record<string, never>, { version: string; type: string }>): Promise<void> {
  const { id } = call.params;
  const editor = catalog.blocks.get(call.body.type)?.editor;
  if (!editor) throw new ValidationError(blockScreenMessages.unknownType, { details: [{ field: 'type', message: blockScreenMessages.unknownType }] });
  const page = await editBlocks(catalog, call, (blocks) => [...blocks, structuredClone(editor.empty)]);
  redirectWithFlash(call.req, call.res, editPath(id, `block-${page.blocks.length - 1}`), blockScreenMessages.added);
}

// POST /admin/pages/:id/blocks/:index {…fields of the block's type, version}
export async function saveBlock(catalog: PageCatalog, call: BlockCall<{ version: string }>): Promise<void> {
  const { id, index } = call.params;
  await editBlocks(catalog, call, (blocks) => {
    const at = indexIn(blocks, index);
    const type = catalog.blocks.get(blocks[at].type);
    if (!type?.editor) throw new ValidationError(blockScreenMessages.unknownType);
    // The fields depend on the block's type, known only now: the form is read here.
    const input = validateValue<Record<string, unknown>>(type.editor.form, call.req.body, { allowUnknown: true });
    blocks[at] = type.editor.fromForm(input);
    return blocks;
  });
  redirectWithFlash(call.req, call.res, editPath(id, `block-${index}`), blockScreenMessages.saved);
}

// POST /admin/pages/:id/blocks/:index/move {direction: up|down, version}
export async function moveBlock(catalog: PageCatalog, call: BlockCall<{ version: string; direction: 'up' | 'down' }>): Promise<void> {
  const { id, index } = call.params;
  let target = index;
  const page = await editBlocks(catalog, call, (blocks) => {
    const at = indexIn(blocks, index);
    target = call.body.direction === 'up' ? at - 1 : at + 1;
    if (target >= 0 && target < blocks.length) [blocks[at], blocks[target]] = [blocks[target], blocks[at]];
    return blocks;
  });
  redirectWithFlash(call.req, call.res, editPath(id, `block-${Math.max(0, Math.min(target, page.blocks.length - 1))}`), blockScreenMessages.moved);
}

// POST /admin/pages/:id/blocks/:index/delete {version} (confirmed in a <details>)
export async function removeBlock(catalog: PageCatalog, call: BlockCall<{ version: string }>): Promise<void> {
  const { id, index } = call.params;
  await editBlocks(catalog, call, (blocks) => {
    blocks.splice(indexIn(blocks, index), 1);
    return blocks;
  });
  redirectWithFlash(call.req, call.res, editPath(id, 'blocks'), blockScreenMessages.removed);
}
