// The block editor without JavaScript: one form per block, and forms to add, move and
// remove blocks. Each action rewrites the page's `blocks` through updatePage, guarded
// by the version (updated_at) the form was rendered from, so an index never lands on
// a block that moved meanwhile.
import type { Request, Response } from 'express';
import Joi from 'joi';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { validateValue } from '../../middleware/validate.js';
import { getMedia } from '../../models/pages/media.js';
import { getPage, updatePage, type Block } from '../../models/pages/pages.js';
import { redirectWithFlash } from '../admin/shell.js';
import { BLOCK_TYPES, safeHref } from './site.js';

export interface BlockField {
  name: string;
  label: string;
  kind: 'text' | 'textarea' | 'select' | 'lines' | 'checkbox' | 'media';
  options?: Array<{ value: string | number; label: string }>;
  hint?: string;
}

export interface BlockForm {
  type: string;
  label: string;
  fields: BlockField[];
  schema: Joi.ObjectSchema;
  empty: Block;
}

const text = (max: number, label: string) => Joi.string().trim().max(max).allow('').default('').label(label);

// One entry per block type the public site can render (BLOCK_TYPES).
const FORMS: BlockForm[] = [
  {
    type: 'heading',
    label: 'Intertitre',
    fields: [
      { name: 'text', label: 'Texte', kind: 'text' },
      { name: 'level', label: 'Niveau', kind: 'select', options: [{ value: 2, label: 'Niveau 2' }, { value: 3, label: 'Niveau 3' }, { value: 4, label: 'Niveau 4' }] },
    ],
    schema: Joi.object({ text: text(300, 'Texte'), level: Joi.number().valid(2, 3, 4).default(2).label('Niveau') }),
    empty: { type: 'heading', text: '', level: 2 },
  },
  {
    type: 'paragraph',
    label: 'Paragraphe',
    fields: [{ name: 'text', label: 'Texte', kind: 'textarea' }],
    schema: Joi.object({ text: text(20_000, 'Texte') }),
    empty: { type: 'paragraph', text: '' },
  },
  {
    type: 'image',
    label: 'Image',
    fields: [{ name: 'media_id', label: 'Image de la médiathèque', kind: 'media' }],
    schema: Joi.object({ media_id: Joi.number().integer().min(1).max(2_147_483_647).required().label('Image') }),
    empty: { type: 'image', media_id: null },
  },
  {
    type: 'list',
    label: 'Liste',
    fields: [
      { name: 'items', label: 'Éléments (un par ligne)', kind: 'lines' },
      { name: 'ordered', label: 'Liste numérotée', kind: 'checkbox' },
    ],
    schema: Joi.object({ items: text(20_000, 'Éléments'), ordered: Joi.any() }),
    empty: { type: 'list', items: [], ordered: false },
  },
  {
    type: 'quote',
    label: 'Citation',
    fields: [
      { name: 'text', label: 'Citation', kind: 'textarea' },
      { name: 'cite', label: 'Source', kind: 'text' },
    ],
    schema: Joi.object({ text: text(5000, 'Citation'), cite: text(300, 'Source') }),
    empty: { type: 'quote', text: '', cite: '' },
  },
  {
    type: 'link',
    label: 'Lien',
    fields: [
      { name: 'href', label: 'Adresse (https://… ou /chemin)', kind: 'text' },
      { name: 'label', label: 'Texte du lien', kind: 'text' },
    ],
    schema: Joi.object({ href: text(2000, 'Adresse'), label: text(300, 'Texte du lien') }),
    empty: { type: 'link', href: '', label: '' },
  },
  {
    type: 'children',
    label: 'Liste des sous-pages',
    fields: [{ name: 'title', label: 'Titre de la liste (facultatif)', kind: 'text' }],
    schema: Joi.object({ title: text(300, 'Titre') }),
    empty: { type: 'children', title: '' },
  },
];

export const BLOCK_FORMS = FORMS.filter((form) => BLOCK_TYPES.has(form.type));
const formsByType = new Map(BLOCK_FORMS.map((form) => [form.type, form]));

export const blockMessages = {
  added: 'Le bloc est ajouté.',
  saved: 'Le bloc est enregistré.',
  moved: 'Le bloc est déplacé.',
  removed: 'Le bloc est supprimé.',
  stale: 'La page a changé depuis l’ouverture de ce formulaire : les blocs affichés sont maintenant à jour, l’action peut être refaite.',
  unknownType: 'Ce type de bloc n’existe pas.',
  noBlock: 'Ce bloc n’existe plus.',
  hrefInvalid: 'L’adresse doit commencer par https://, http:// ou / (un chemin du site).',
} as const;

export function blockFormFor(type: string): BlockForm | undefined {
  return formsByType.get(type);
}

/** The values a block's form shows (the list's items one per line). */
export function blockValues(block: Block): Record<string, unknown> {
  return block.type === 'list' ? { ...block, items: Array.isArray(block.items) ? block.items.join('\n') : '' } : block;
}

const versionForm = Joi.object({ version: Joi.string().max(40).required() });

async function loadForChange(req: Request): Promise<{ id: number; blocks: Block[] }> {
  const id = Number(req.params.id);
  const page = await getPage(id);
  const { version } = validateValue<{ version: string }>(versionForm, req.body, { allowUnknown: true });
  if (new Date(version).getTime() !== new Date(page.updated_at).getTime()) throw new ConflictError(blockMessages.stale, { code: 'stale_page' });
  return { id, blocks: Array.isArray(page.blocks) ? [...page.blocks] : [] };
}

function indexOf(req: Request, blocks: Block[]): number {
  const index = Number(req.params.index);
  if (!Number.isInteger(index) || index < 0 || index >= blocks.length) throw new NotFoundError(blockMessages.noBlock);
  return index;
}

function editPath(id: number, anchor?: string): string {
  return `/admin/pages/${id}${anchor ? `#${anchor}` : ''}`;
}

// POST /admin/pages/:id/blocks {type, version}
export async function addBlock(req: Request, res: Response): Promise<void> {
  const { id, blocks } = await loadForChange(req);
  const form = typeof req.body.type === 'string' ? blockFormFor(req.body.type) : undefined;
  if (!form) throw new ValidationError(blockMessages.unknownType, { details: [{ field: 'type', message: blockMessages.unknownType }] });
  blocks.push({ ...form.empty });
  await updatePage(id, { blocks }, req.user?.id ?? null);
  redirectWithFlash(req, res, editPath(id, `block-${blocks.length - 1}`), blockMessages.added);
}

// POST /admin/pages/:id/blocks/:index {…fields of the type, version}
export async function saveBlock(req: Request, res: Response): Promise<void> {
  const { id, blocks } = await loadForChange(req);
  const index = indexOf(req, blocks);
  const current = blocks[index];
  const form = blockFormFor(current.type);
  if (!form) throw new ValidationError(blockMessages.unknownType);
  const input = validateValue<Record<string, unknown>>(form.schema, req.body, { allowUnknown: true });
  let next: Block = { ...current, ...input, type: current.type };
  if (current.type === 'list') {
    next = { ...current, items: String(input.items).split(/\r?\n/).map((line) => line.trim()).filter(Boolean).slice(0, 500), ordered: Boolean(input.ordered) };
  }
  if (current.type === 'image') {
    await getMedia(Number(input.media_id)).catch(() => {
      throw new ValidationError(blockMessages.noBlock, { details: [{ field: 'media_id', message: 'Cette image n’existe pas dans la médiathèque.' }] });
    });
    next = { type: 'image', media_id: Number(input.media_id) };
  }
  if (current.type === 'link' && next.href && !safeHref(next.href)) {
    throw new ValidationError(blockMessages.hrefInvalid, { details: [{ field: 'href', message: blockMessages.hrefInvalid }] });
  }
  blocks[index] = next;
  await updatePage(id, { blocks }, req.user?.id ?? null);
  redirectWithFlash(req, res, editPath(id, `block-${index}`), blockMessages.saved);
}

// POST /admin/pages/:id/blocks/:index/move {direction: up|down, version}
export async function moveBlock(req: Request, res: Response): Promise<void> {
  const { id, blocks } = await loadForChange(req);
  const index = indexOf(req, blocks);
  const target = req.body.direction === 'up' ? index - 1 : index + 1;
  if (target >= 0 && target < blocks.length) [blocks[index], blocks[target]] = [blocks[target], blocks[index]];
  await updatePage(id, { blocks }, req.user?.id ?? null);
  redirectWithFlash(req, res, editPath(id, `block-${Math.max(0, Math.min(target, blocks.length - 1))}`), blockMessages.moved);
}

// POST /admin/pages/:id/blocks/:index/delete {version} (confirmed in a <details>)
export async function removeBlock(req: Request, res: Response): Promise<void> {
  const { id, blocks } = await loadForChange(req);
  blocks.splice(indexOf(req, blocks), 1);
  await updatePage(id, { blocks }, req.user?.id ?? null);
  redirectWithFlash(req, res, editPath(id, 'blocks'), blockMessages.removed);
}
