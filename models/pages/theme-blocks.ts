// A theme's block types and templates (theme.json, lib/themes.ts) as the catalog's own:
// each declared field becomes a joi rule (what the API and the model check a stored
// block against, a 400 naming `blocks.<i>.<field>` on a bad value) and a field of the
// block editor's HTML form. A theme never replaces a built-in block type (its views
// may restyle one: `views/site/blocks/paragraph.njk`).
import Joi from 'joi';
import { id, text } from '../../lib/schema-primitives.js';
import type { ThemeBlock, ThemeField, ThemeTemplate } from '../../lib/themes.js';
import { safeHref, type Block, type BlockField, type BlockType } from './blocks.js';
import { blockMessages } from './messages.js';
import type { PageTemplate } from './templates.js';

const TEXT_MAX = 300;
const MARKDOWN_MAX = 20_000;
const URL_MAX = 2000;

/** The stored value's rule (JSON: no conversion of strings to numbers or booleans). */
function storedRule(field: ThemeField): Joi.Schema {
  let rule: Joi.Schema;
  switch (field.type) {
    case 'number': {
      let number = Joi.number();
      if (field.min !== undefined) number = number.min(field.min);
      if (field.max !== undefined) number = number.max(field.max);
      rule = field.required ? number : number.allow(null);
      break;
    }
    case 'boolean':
      rule = Joi.boolean();
      break;
    case 'image':
      rule = field.required ? id : id.allow(null);
      break;
    case 'select':
      rule = text().valid(...(field.options ?? []).map((option) => option.value));
      if (!field.required) rule = rule.allow('');
      break;
    default: {
      let string = text().max(field.max ?? (field.type === 'markdown' ? MARKDOWN_MAX : field.type === 'url' ? URL_MAX : TEXT_MAX));
      if (field.min !== undefined) string = string.min(field.min);
      if (field.type === 'url') {
        string = string
          .custom((value: string, helpers) => (value === '' ? '' : (safeHref(value) ?? helpers.error('string.unsafeHref'))))
          .messages({ 'string.unsafeHref': blockMessages.hrefInvalid });
      }
      rule = field.required ? string : string.allow('');
    }
  }
  return (field.required ? rule.required() : rule).label(field.label);
}

/** The form's rule for a field: strings as submitted, converted to the stored value. */
function formRule(field: ThemeField): Joi.Schema {
  if (field.type === 'boolean') return Joi.string().valid('on', '1', 'true').allow('').label(field.label);
  const stored = storedRule(field);
  // An empty field is a missing one: refused when required, left out when not.
  if (field.type === 'number' || field.type === 'image') return stored.empty('');
  return Joi.string()
    .trim()
    .concat(stored as Joi.StringSchema)
    .empty('');
}

function editorField(name: string, field: ThemeField): BlockField {
  const kind = ({ text: 'text', url: 'text', number: 'text', markdown: 'textarea', select: 'select', boolean: 'checkbox', image: 'media' } as const)[
    field.type
  ];
  const options = field.type === 'select' ? [...(field.required ? [] : [{ value: '', label: '—' }]), ...(field.options ?? [])] : undefined;
  return { name, label: field.required ? `${field.label} (obligatoire)` : field.label, kind, ...(options ? { options } : {}) };
}

function fromForm(type: string, fields: Record<string, ThemeField>, input: Record<string, unknown>): Block {
  const block: Block = { type };
  for (const [name, field] of Object.entries(fields)) {
    const value = input[name];
    if (field.type === 'boolean') block[name] = value === 'on' || value === '1' || value === 'true';
    else if (value === '' || value === undefined) continue;
    else block[name] = field.type === 'number' || field.type === 'image' ? Number(value) : value;
  }
  return block;
}

/** A theme's block type, checked and edited from its declaration. */
export function themeBlockType(type: string, declared: ThemeBlock): BlockType {
  const entries = Object.entries(declared.fields);
  const empty: Block = { type };
  for (const [name, field] of entries) if (field.type === 'boolean') empty[name] = false;
  return {
    type,
    label: declared.label,
    fields: Object.fromEntries(entries.map(([name, field]) => [name, storedRule(field)])),
    editor: {
      fields: entries.map(([name, field]) => editorField(name, field)),
      form: Joi.object(Object.fromEntries(entries.map(([name, field]) => [name, formRule(field)]))),
      empty,
      fromForm: (input) => fromForm(type, declared.fields, input),
      values: (block) => Object.fromEntries(entries.map(([name]) => [name, block[name] ?? ''])),
    },
  };
}

export function themeTemplate(name: string, declared: ThemeTemplate): PageTemplate {
  return { name, label: declared.label, view: declared.view, listsChildren: declared.listsChildren };
}
