// The page editor's one document: the page's fields and all its blocks in one form.
// Blocks are listed by a key (`blocks`, repeated, in the document's order) and their
// fields are named `b.<key>.<field>`, so a script may reorder or add blocks without
// renaming anything. Every button of the form submits it whole (`action`), so an
// add, a move or a removal applies to what was typed too: nothing is lost.
// This file reads a submitted document (with a message per field, never a throw
// before every field was looked at) and applies the button's action to it.
import Joi from 'joi';
import { ValidationError, type ErrorDetail } from '../../lib/errors.js';
import { parseJsonText } from '../../lib/json.js';
import { holdsUnstorableText } from '../../lib/schema-primitives.js';
import { prepareSchema } from '../../lib/validation.js';
import { BLOCK_ID_PATTERN, BLOCK_TYPE_PATTERN, BLOCKS_MAX, type Block, type BlockField } from '../../models/pages/blocks.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { pageForm, type PageFormInput } from './admin-screens.js';
import { documentMessages } from './messages.js';

const KEY = /^[a-z0-9]{1,16}$/;

/** One block as the form shows it: its key, its type, the values of its fields. */
export interface DocumentBlock {
  key: string;
  /** The block's stable id (a hidden field): empty for a block added in the form, given by the server. */
  id?: string;
  type: string;
  /** The type's label, or undefined for a type without an editor (kept as it is, in `json`). */
  label?: string;
  fields?: BlockField[];
  values: Record<string, unknown>;
  /** A block of a type without an editor travels as its stored JSON. */
  json?: string;
  /** Its type is neither built in nor the active theme's: kept as stored, shown read-only. */
  unknown?: boolean;
  errors: Record<string, string>;
}

export interface EditorDocument {
  values: Record<string, unknown>;
  blocks: DocumentBlock[];
}

/** A submitted document that reads well: what the model is given. */
export interface ParsedDocument {
  page: PageFormInput;
  blocks: Block[];
  keys: string[];
}

export type EditorAction =
  | { kind: 'save' | 'autosave' | 'publish' | 'preview' | 'schedule' | 'unschedule' | 'discard' | 'parent-search' | 'review' }
  | { kind: 'add'; type: string; at: number; after?: string }
  | { kind: 'up' | 'down' | 'remove'; key: string };

const preparedPageForm = prepareSchema(pageForm, { allowUnknown: true });

function asList(value: unknown): string[] {
  return ([] as unknown[]).concat(value ?? []).filter((item): item is string => typeof item === 'string');
}

function raw(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  return typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : '';
}

/** The form's values for a stored block of a type with an editor. */
export function blockValues(catalog: PageCatalog, block: Block): Record<string, unknown> {
  const editor = catalog.blocks.get(block.type)?.editor;
  return editor?.values?.(block) ?? block;
}

/** The document of a stored page (its fields' values are given by the caller). */
export function storedDocument(catalog: PageCatalog, values: Record<string, unknown>, blocks: unknown): EditorDocument {
  const list = Array.isArray(blocks) ? (blocks as Block[]) : [];
  return { values, blocks: list.map((block, index) => documentBlock(catalog, String(index), block)) };
}

export function documentBlock(catalog: PageCatalog, key: string, block: Block): DocumentBlock {
  const type = catalog.blocks.get(block.type);
  const id = typeof block.id === 'string' ? block.id : undefined;
  if (type?.editor) return { key, id, type: block.type, label: type.label, fields: type.editor.fields, values: blockValues(catalog, block), errors: {} };
  return { key, type: String(block.type), values: {}, json: JSON.stringify(block), errors: {}, unknown: !type };
}

function fieldErrors(error: Joi.ValidationError | undefined, prefix = ''): Record<string, string> {
  const found: Record<string, string> = {};
  for (const detail of error?.details ?? []) found[prefix + (detail.path.join('.') || String(detail.context?.key ?? ''))] ??= detail.message;
  return found;
}

/**
 * Reads the submitted document. `document` is what the form shows again (the input as
 * typed, with a message per field); `parsed` is there only when everything reads well.
 */
export function readDocument(
  catalog: PageCatalog,
  body: Record<string, unknown>,
  /** The keys of the image blocks a file came with (it stands for the picture the block waits for). */
  uploads: ReadonlySet<string> = new Set(),
): { document: EditorDocument; parsed?: ParsedDocument; details: ErrorDetail[] } {
  const details: ErrorDetail[] = [];
  const page = preparedPageForm.validate(body);
  const pageErrors = fieldErrors(page.error);
  for (const [field, message] of Object.entries(pageErrors)) details.push({ field, message });
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(pageForm.describe().keys as object)) values[name] = raw(body, name);

  const keys = [...new Set(asList(body.blocks).filter((key) => KEY.test(key)))];
  if (keys.length > BLOCKS_MAX) details.push({ field: 'blocks', message: documentMessages.tooMany });
  const blocks: DocumentBlock[] = [];
  const parsedBlocks: Block[] = [];
  for (const key of keys.slice(0, BLOCKS_MAX)) {
    const typeName = raw(body, `b.${key}.type`);
    const type = catalog.blocks.get(typeName);
    const editor = type?.editor;
    if (!editor) {
      const json = raw(body, `b.${key}.json`);
      const block = parseStoredBlock(json);
      const item: DocumentBlock = { key, type: block?.type ?? typeName, values: {}, json, errors: {}, unknown: !type };
      if (!block) {
        item.errors.block = documentMessages.badBlock;
        details.push({ field: `b.${key}`, message: documentMessages.badBlock });
      } else parsedBlocks.push(block);
      blocks.push(item);
      continue;
    }
    const input: Record<string, unknown> = {};
    for (const field of editor.fields) input[field.name] = raw(body, `b.${key}.${field.name}`);
    if (typeName === 'image' && uploads.has(key)) input.upload = true;
    // The id the block was rendered with; anything else is left for the server to give.
    const givenId = raw(body, `b.${key}.id`);
    const id = BLOCK_ID_PATTERN.test(givenId) ? givenId : undefined;
    const withId = (block: Block): Block => (id ? { ...block, id } : block);
    const item: DocumentBlock = { key, id, type: typeName, label: type.label, fields: editor.fields, values: input, errors: {} };
    blocks.push(item);
    // A media field left empty: the block waits for its picture (the type allows it). A
    // theme's block with other fields says itself what an empty picture means.
    if (editor.fields.length === 1 && editor.fields[0].kind === 'media' && input[editor.fields[0].name] === '') {
      parsedBlocks.push(withId(structuredClone(editor.empty)));
      continue;
    }
    const checked = prepareSchema(editor.form, { allowUnknown: true }).validate(input);
    if (checked.error) {
      item.errors = fieldErrors(checked.error);
      for (const [field, message] of Object.entries(item.errors)) details.push({ field: `b.${key}.${field}`, message });
    } else parsedBlocks.push(withId(editor.fromForm(checked.value as Record<string, unknown>)));
  }
  const document = { values, blocks };
  if (details.length) return { document, details };
  return { document, details, parsed: { page: page.value as PageFormInput, blocks: parsedBlocks, keys } };
}

function parseStoredBlock(json: string): Block | undefined {
  const value = parseJsonText(json);
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const block = value as Block;
  if (typeof block.type !== 'string' || !BLOCK_TYPE_PATTERN.test(block.type) || holdsUnstorableText(block)) return undefined;
  return block;
}

/** The button that submitted the form; the default (Enter in a field) saves. */
export function readAction(body: Record<string, unknown>, blockCount: number): EditorAction {
  const action = raw(body, 'action');
  const simple = ['save', 'autosave', 'publish', 'preview', 'schedule', 'unschedule', 'discard', 'parent-search', 'review'] as const;
  const found = simple.find((kind) => kind === action);
  if (found) return { kind: found };
  if (action === 'add') return { kind: 'add', type: raw(body, 'add_type'), at: blockCount };
  // Inserting after a block names the block (by key): a script may have moved it.
  let match = /^insert:([a-z0-9]{1,16}):([a-z0-9_-]{1,64})$/.exec(action);
  if (match) return { kind: 'add', type: match[2], at: -1, after: match[1] };
  match = /^(up|down|remove):([a-z0-9]{1,16})$/.exec(action);
  if (match) return { kind: match[1] as 'up' | 'down' | 'remove', key: match[2] };
  return { kind: 'save' };
}

/** What an action did, for the message shown at the block it touched. */
export interface ActionOutcome {
  blocks: Block[];
  /** The position the message and the focus go to (-1: the page's top). */
  at: number;
  done: 'added' | 'moved' | 'removed' | 'saved';
}

export function applyAction(catalog: PageCatalog, parsed: ParsedDocument, action: EditorAction): ActionOutcome {
  const blocks = [...parsed.blocks];
  if (action.kind === 'add') {
    const editor = catalog.blocks.get(action.type)?.editor;
    if (!editor) throw new ValidationError(documentMessages.unknownType, { details: [{ field: 'add_type', message: documentMessages.unknownType }] });
    if (blocks.length >= BLOCKS_MAX)
      throw new ValidationError(documentMessages.tooMany, { details: [{ field: 'add_type', message: documentMessages.tooMany }] });
    const after = action.after === undefined ? -1 : parsed.keys.indexOf(action.after);
    const at = action.after === undefined ? Math.min(action.at, blocks.length) : after < 0 ? blocks.length : after + 1;
    blocks.splice(at, 0, structuredClone(editor.empty));
    return { blocks, at, done: 'added' };
  }
  if (action.kind === 'up' || action.kind === 'down' || action.kind === 'remove') {
    const index = parsed.keys.indexOf(action.key);
    if (index < 0) return { blocks, at: -1, done: 'saved' };
    if (action.kind === 'remove') {
      blocks.splice(index, 1);
      return { blocks, at: Math.min(index, blocks.length - 1), done: 'removed' };
    }
    const target = action.kind === 'up' ? index - 1 : index + 1;
    if (target < 0 || target >= blocks.length) return { blocks, at: index, done: 'moved' };
    [blocks[index], blocks[target]] = [blocks[target], blocks[index]];
    return { blocks, at: target, done: 'moved' };
  }
  return { blocks, at: -1, done: 'saved' };
}
