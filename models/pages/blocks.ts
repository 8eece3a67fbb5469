// Block types of a page's content, shared by the API's edge, the model, the block
// editor and the public renderer, so that one rule decides what a block may hold:
// each rendered type has its own joi schema (unknown fields refused on write, and
// only its declared fields ever reach a template); a link goes only to http(s) or to
// a path of this site; an image names a media by id and gets its URL from that media
// alone. Blocks of other types may be stored (another version or module wrote them)
// but are never rendered. A registry is created by the module's register(), never at
// import time.
import { randomBytes } from 'node:crypto';
import Joi from 'joi';
import { warnOnce, type AppContext } from '../../lib/context.js';
import { holdsUnstorableText, id, text } from '../../lib/schema-primitives.js';
import { UPLOADS_URL_PREFIX } from '../../lib/uploads.js';
import { textMessages } from '../../lib/messages.js';
import { blockMessages } from './messages.js';

export interface Block {
  type: string;
  [key: string]: unknown;
}

export const BLOCKS_MAX = 500;
export const BLOCK_TYPE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/**
 * A block's stable id, unique within its page: what a merge of two saves matches blocks
 * by. The server gives one to a block that has none; a client may send its own (a UUID fits).
 */
export const BLOCK_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,35}$/;
const blockId = text().max(36).pattern(BLOCK_ID_PATTERN).messages({ 'string.pattern.base': blockMessages.idInvalid });

/** A new block id: 12 random base-36 characters (longer than any id the migration gave). */
function newBlockId(): string {
  const bytes = randomBytes(12);
  let id = '';
  for (const byte of bytes) id += (byte % 36).toString(36);
  return id;
}

/** The blocks, each with an id: kept when present, given when absent (the array is not changed). */
export function withBlockIds(blocks: Block[]): Block[] {
  return blocks.map((block) => (typeof block.id === 'string' && block.id ? block : { ...block, id: newBlockId() }));
}

/** Links only to http(s) or to a path of this site: never `javascript:`, `//host` or `/\host`. */
export function safeHref(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const href = value.trim();
  if (/^\/(?![/\\])[^\s\\]*$/.test(href)) return href;
  return /^https?:\/\/[^\s\\]+$/i.test(href) ? href : null;
}

/** A link field: empty, or a safe href (stored trimmed). */
function hrefField(max = 2000, message: string = blockMessages.hrefInvalid): Joi.StringSchema {
  return text()
    .max(max)
    .allow('')
    .custom((value: string, helpers) => (value.trim() === '' ? '' : (safeHref(value) ?? helpers.error('string.unsafeHref'))))
    .messages({ 'string.unsafeHref': message });
}

const plain = (max: number) => text().max(max).allow('');

/** A page's SEO data (rendered as the page's meta tags). */
export const seoSchema = Joi.object({
  title: plain(300),
  description: plain(1000),
  image: hrefField(2000, blockMessages.imageInvalid),
  noindex: Joi.boolean(),
}).unknown(false);

export interface BlockField {
  name: string;
  label: string;
  kind: 'text' | 'textarea' | 'select' | 'lines' | 'checkbox' | 'media';
  options?: Array<{ value: string | number; label: string }>;
}

/** How the block editor (HTML forms, no JavaScript) edits a type. */
interface BlockEditor {
  fields: BlockField[];
  /** The form's fields as submitted (strings), labelled for the messages. */
  form: Joi.ObjectSchema;
  /** The block a new one of this type starts as. */
  empty: Block;
  /** The block the validated form describes. */
  fromForm(input: Record<string, unknown>): Block;
  /** The form's values for a stored block. */
  values?(block: Block): Record<string, unknown>;
}

export interface BlockType {
  type: string;
  label: string;
  /** The fields besides `type`; refused when unknown on write, dropped on render. */
  fields: Record<string, Joi.Schema>;
  editor?: BlockEditor;
  /** Data only the server adds (image: the media's url, alt, caption), checked here. */
  extra?(stored: Block): Record<string, unknown> | null;
}

const FORM_TEXT = (max: number, label: string) => text().trim().max(max).allow('').default('').label(label);

/** What the public site renders and the editor offers. */
const BUILT_IN_BLOCK_TYPES: readonly BlockType[] = Object.freeze<BlockType[]>([
  {
    type: 'heading',
    label: 'Intertitre',
    fields: { text: plain(300), level: Joi.number().integer().valid(2, 3, 4) },
    editor: {
      fields: [
        { name: 'text', label: 'Texte', kind: 'text' },
        { name: 'level', label: 'Niveau', kind: 'select', options: [2, 3, 4].map((level) => ({ value: level, label: `Niveau ${level}` })) },
      ],
      form: Joi.object({ text: FORM_TEXT(300, 'Texte'), level: Joi.number().integer().valid(2, 3, 4).default(2).label('Niveau') }),
      empty: { type: 'heading', text: '', level: 2 },
      fromForm: (input) => ({ type: 'heading', text: input.text, level: input.level }),
    },
  },
  {
    type: 'paragraph',
    label: 'Paragraphe',
    fields: { text: plain(20_000) },
    editor: {
      fields: [{ name: 'text', label: 'Texte', kind: 'textarea' }],
      form: Joi.object({ text: FORM_TEXT(20_000, 'Texte') }),
      empty: { type: 'paragraph', text: '' },
      fromForm: (input) => ({ type: 'paragraph', text: input.text }),
    },
  },
  {
    type: 'image',
    label: 'Image',
    // null: an image block added in the editor whose picture is not chosen yet. `alt` is
    // this block's text alternative (the media's own when absent or empty); `decorative`
    // marks an image that says nothing (rendered with an empty alt).
    fields: { media_id: id.allow(null), alt: plain(500), decorative: Joi.boolean() },
    editor: {
      fields: [
        { name: 'media_id', label: 'Image', kind: 'media' },
        { name: 'alt', label: 'Texte alternatif', kind: 'text' },
        { name: 'decorative', label: 'Image décorative (rien à décrire)', kind: 'checkbox' },
      ],
      // `upload`: a file comes with the form for this block (the editor's reading sets it).
      form: Joi.object({
        media_id: id.allow(null).empty('').default(null).label('Image'),
        alt: FORM_TEXT(500, 'Texte alternatif'),
        decorative: text().max(10).allow('').label('Image décorative'),
        upload: Joi.boolean(),
      })
        .custom((value: Record<string, unknown>, helpers) =>
          (value.media_id !== null || value.upload) && !value.decorative && value.alt === ''
            ? helpers.error('image.altMissing', {}, helpers.state.localize!([...(helpers.state.path ?? []), 'alt']))
            : value,
        )
        .messages({ 'image.altMissing': blockMessages.altMissing }),
      empty: { type: 'image', media_id: null, alt: '' },
      fromForm: (input) => ({ type: 'image', media_id: input.media_id, alt: input.alt, ...(input.decorative ? { decorative: true } : {}) }),
    },
    // The URL comes from the media row (attachMedia), never from the stored block.
    extra: (stored) =>
      typeof stored.url === 'string' && stored.url.startsWith(UPLOADS_URL_PREFIX)
        ? {
            url: stored.url,
            alt: typeof stored.alt === 'string' ? stored.alt : '',
            caption: typeof stored.caption === 'string' ? stored.caption : '',
            // Its sources and size (models/pages/media-pictures.ts), set by attachMedia like the URL.
            picture: stored.picture && typeof stored.picture === 'object' ? stored.picture : null,
          }
        : null,
  },
  {
    type: 'list',
    label: 'Liste',
    fields: { items: Joi.array().items(plain(2000)).max(500), ordered: Joi.boolean() },
    editor: {
      fields: [
        { name: 'items', label: 'Éléments (un par ligne)', kind: 'lines' },
        { name: 'ordered', label: 'Liste numérotée', kind: 'checkbox' },
      ],
      form: Joi.object({ items: FORM_TEXT(20_000, 'Éléments'), ordered: text().max(10).allow('').label('Liste numérotée') }),
      empty: { type: 'list', items: [], ordered: false },
      fromForm: (input) => ({
        type: 'list',
        items: String(input.items)
          .split(/\r?\n/)
          .map((line) => line.trim().slice(0, 2000))
          .filter(Boolean)
          .slice(0, 500),
        ordered: Boolean(input.ordered),
      }),
      values: (block) => ({ ...block, items: Array.isArray(block.items) ? block.items.join('\n') : '' }),
    },
  },
  {
    type: 'quote',
    label: 'Citation',
    fields: { text: plain(5000), cite: plain(300) },
    editor: {
      fields: [
        { name: 'text', label: 'Citation', kind: 'textarea' },
        { name: 'cite', label: 'Source', kind: 'text' },
      ],
      form: Joi.object({ text: FORM_TEXT(5000, 'Citation'), cite: FORM_TEXT(300, 'Source') }),
      empty: { type: 'quote', text: '', cite: '' },
      fromForm: (input) => ({ type: 'quote', text: input.text, cite: input.cite }),
    },
  },
  {
    type: 'link',
    label: 'Lien',
    fields: { href: hrefField(), label: plain(300) },
    editor: {
      fields: [
        { name: 'href', label: 'Adresse (https://… ou /chemin)', kind: 'text' },
        { name: 'label', label: 'Texte du lien', kind: 'text' },
      ],
      form: Joi.object({ href: hrefField().trim().default('').label('Adresse'), label: FORM_TEXT(300, 'Texte du lien') }),
      empty: { type: 'link', href: '', label: '' },
      fromForm: (input) => ({ type: 'link', href: input.href, label: input.label }),
    },
  },
  {
    type: 'children',
    label: 'Liste des sous-pages',
    fields: { title: plain(300) },
    editor: {
      fields: [{ name: 'title', label: 'Titre de la liste (facultatif)', kind: 'text' }],
      form: Joi.object({ title: FORM_TEXT(300, 'Titre') }),
      empty: { type: 'children', title: '' },
      fromForm: (input) => ({ type: 'children', title: input.title }),
    },
  },
]);

export interface BlockRegistry {
  register(type: BlockType): void;
  get(type: string): BlockType | undefined;
  list(): BlockType[];
  /** joi schema of a page's `blocks`: known types strictly, other types as objects with a type. */
  schema(): Joi.ArraySchema;
  /**
   * A stored block as a template may receive it: its declared fields checked by its
   * type's schema (anything else dropped) plus what the server added; `unknown` for a
   * type not registered, `invalid` when the stored fields break the rules, `empty`
   * when there is nothing to show (an image without its media).
   */
  view(stored: unknown): BlockView;
}

// Any block: an object whose type is a short name, holding nothing PostgreSQL cannot store.
const anyBlock = Joi.object({ type: text().min(1).max(64).pattern(BLOCK_TYPE_PATTERN).required(), id: blockId })
  .unknown(true)
  .custom((value: Block, helpers) => (holdsUnstorableText(value) ? helpers.error('object.unstorable') : value))
  .messages({ 'object.unstorable': textMessages.unstorable });

interface Entry {
  type: BlockType;
  /** On write: the type and its fields, nothing else. */
  strict: Joi.ObjectSchema;
}

/** A stored block as a template may receive it, or why it is not rendered. */
type BlockView = { block: Block } | { skipped: 'unknown' | 'invalid' | 'empty'; type: string; reason?: string };

/** Distinct stored blocks whose check an app keeps (see view()). */
const CHECKED_VIEWS_MAX = 10_000;

export function createBlockRegistry(types: readonly BlockType[] = BUILT_IN_BLOCK_TYPES): BlockRegistry {
  const entries = new Map<string, Entry>();
  let listSchema: Joi.ArraySchema | undefined;
  const checkedViews = new Map<string, BlockView>();
  function checkView(stored: unknown): BlockView {
    const record = stored && typeof stored === 'object' && !Array.isArray(stored) ? (stored as Block) : undefined;
    const name = typeof record?.type === 'string' ? record.type.slice(0, 64) : `(${typeof stored})`;
    const entry = entries.get(name);
    if (!record || !entry) return { skipped: 'unknown', type: name };
    const declared: Block = { type: name };
    for (const field of Object.keys(entry.type.fields)) if (record[field] !== undefined) declared[field] = record[field];
    const checked = entry.strict.validate(declared, { convert: false });
    if (checked.error) return { skipped: 'invalid', type: name, reason: checked.error.message };
    const extra = entry.type.extra ? entry.type.extra(record) : {};
    if (extra === null) return { skipped: 'empty', type: name };
    return { block: { ...(checked.value as Block), ...extra, type: name } };
  }

  const registry: BlockRegistry = {
    register(type) {
      if (!BLOCK_TYPE_PATTERN.test(type.type)) throw new Error(`invalid block type: ${type.type}`);
      entries.set(type.type, { type, strict: Joi.object({ type: Joi.string().valid(type.type).required(), id: blockId, ...type.fields }).unknown(false) });
      listSchema = undefined;
      checkedViews.clear();
    },
    get: (name) => entries.get(name)?.type,
    list: () => [...entries.values()].map((entry) => entry.type),
    schema() {
      listSchema ??= Joi.array()
        .items(anyBlock.when('.type', { switch: [...entries.values()].map((entry) => ({ is: entry.type.type, then: entry.strict })) }))
        .max(BLOCKS_MAX);
      return listSchema;
    },
    view(stored) {
      // The check runs once per distinct stored block and app, not on every request: a
      // page's blocks change only when it is written. The cache is bounded; when full it
      // starts again (pages are rendered far more often than they are edited).
      const key = JSON.stringify(stored);
      let view = checkedViews.get(key);
      if (!view) {
        view = checkView(stored);
        if (checkedViews.size >= CHECKED_VIEWS_MAX) checkedViews.clear();
        checkedViews.set(key, view);
      }
      return 'block' in view ? { block: { ...view.block } } : view;
    },
  };
  for (const type of types) registry.register(type);
  return registry;
}

/**
 * The blocks a template may receive (see BlockRegistry.view). Unknown and invalid
 * blocks are skipped and logged once per type and application: a page viewed often
 * must not flood the log.
 */
export function renderableBlocks(ctx: AppContext, registry: BlockRegistry, blocks: unknown, pageId: number): Block[] {
  const kept: Block[] = [];
  for (const stored of Array.isArray(blocks) ? (blocks as unknown[]) : []) {
    const view = registry.view(stored);
    if ('block' in view) kept.push(view.block);
    else if (view.skipped !== 'empty') {
      warnOnce(ctx, `pages.block.${view.skipped}.${view.type}`, `${view.skipped} page block type skipped`, { type: view.type, pageId, reason: view.reason });
    }
  }
  return kept;
}
