// theme.json, the one file that declares a theme (docs/themes.md): its name, label and
// version, its stylesheets, its page templates, its block types with their fields, and
// its settings. Checked with joi when the themes are listed; a file that breaks a rule
// makes the theme invalid, with a message naming the problem (it cannot be activated).
import Joi from 'joi';
import { prepareSchema } from '../../lib/validation.js';
import { THEME_FIELD_TYPES, type ThemeBlock, type ThemeTemplate } from '../../lib/themes.js';

export const THEME_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const FIELD_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
// A view named as the site's are: folders and a .njk file, never `..` nor an absolute path.
const VIEW_PATTERN = /^(?:[a-z0-9_-]+\/)*[a-z0-9_-]+\.njk$/;
// An asset under assets/: a file, or a file in one folder.
export const ASSET_PATTERN = /^(?:[A-Za-z0-9_-]+\/)?[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.[A-Za-z0-9]+$/;
// Names the block's own data uses: a field may not take them.
const RESERVED_FIELDS = ['type', 'id'];

export interface ThemeManifest {
  name: string;
  label: string;
  version: string;
  description: string;
  stylesheets: string[];
  templates: Record<string, ThemeTemplate>;
  blocks: Record<string, ThemeBlock>;
  settings: Record<string, unknown>;
}

const label = Joi.string().trim().min(1).max(100);

const field = Joi.object({
  type: Joi.string()
    .valid(...THEME_FIELD_TYPES)
    .required(),
  label: label.required(),
  required: Joi.boolean().default(false),
  options: Joi.when('type', {
    is: 'select',
    then: Joi.array()
      .items(Joi.object({ value: Joi.string().min(1).max(100).required(), label: label.required() }))
      .min(1)
      .max(100)
      .unique('value')
      .required(),
    otherwise: Joi.forbidden(),
  }),
  max: Joi.number().min(0),
  min: Joi.number().min(0),
});

const manifestSchema = Joi.object<ThemeManifest>({
  name: Joi.string().pattern(THEME_NAME_PATTERN).required(),
  label: label.required(),
  version: Joi.string().trim().min(1).max(40).required(),
  description: Joi.string().max(1000).allow('').default(''),
  stylesheets: Joi.array().items(Joi.string().pattern(ASSET_PATTERN)).max(20).default([]),
  templates: Joi.object()
    .pattern(
      Joi.string().pattern(KEY_PATTERN),
      Joi.object({ label: label.required(), view: Joi.string().pattern(VIEW_PATTERN).required(), listsChildren: Joi.boolean().default(false) }),
    )
    .default({}),
  blocks: Joi.object()
    .pattern(
      Joi.string().pattern(KEY_PATTERN),
      Joi.object({
        label: label.required(),
        view: Joi.string().pattern(VIEW_PATTERN).required(),
        fields: Joi.object()
          .pattern(
            Joi.string()
              .pattern(FIELD_PATTERN)
              .invalid(...RESERVED_FIELDS),
            field,
          )
          .min(1)
          .max(30)
          .required(),
      }),
    )
    .default({}),
  settings: Joi.object().default({}),
}).unknown(false);

const prepared = prepareSchema(manifestSchema);

/** The manifest, or the first problem as a sentence naming its place in theme.json. */
export function parseManifest(text: string): { manifest: ThemeManifest } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `theme.json n’est pas du JSON valide (${(error as Error).message}).` };
  }
  const result = prepared.validate(value);
  if (result.error) {
    const detail = result.error.details[0];
    const place = detail.path.join('.');
    return { error: `theme.json${place ? `, ${place}` : ''} : ${detail.message}` };
  }
  return { manifest: result.value as ThemeManifest };
}
