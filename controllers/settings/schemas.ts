// The settings' joi schemas: the API's partial change (JSON, strict) and the screen's
// form (every field, strings). The rules joi cannot check (a zone that exists, a public
// home page, an installed theme) are the model's (models/settings/settings.ts).
import Joi from 'joi';
import { id, text } from '../../lib/schema-primitives.js';
import { singleLine } from '../../lib/validation.js';
import type { SettingsPatch } from '../../models/settings/settings.js';
import { settingsMessages } from '../../models/settings/messages.js';
import { settingsFieldLabels as labels } from './messages.js';

const colour = text()
  .trim()
  .lowercase()
  .pattern(/^#[0-9a-f]{6}$/)
  .messages({ 'string.pattern.base': settingsMessages.accentInvalid });

const title = singleLine(text().trim().min(1).max(120)).messages({
  'string.empty': settingsMessages.titleInvalid,
  'string.max': settingsMessages.titleInvalid,
});
const tagline = singleLine(text().trim().max(300)).allow('');
const footer = text().max(5000).allow('');
const timeZone = text().trim().min(1).max(100);
const theme = text().trim().min(1).max(100);

/** PUT /app/api/admin/settings: any of the scalar fields; null puts a default back. */
export const settingsBody = Joi.object<SettingsPatch>({
  title: title.allow(null).label('title'),
  tagline: tagline.label('tagline'),
  accent_colour: colour.allow(null).label('accent_colour'),
  home_page_id: id.allow(null).label('home_page_id'),
  footer: footer.label('footer'),
  time_zone: timeZone.allow(null).label('time_zone'),
  noindex: Joi.boolean().strict().label('noindex'),
  theme: theme.label('theme'),
});

export interface SettingsForm {
  title: string;
  tagline: string;
  accent_colour: string;
  home_page_id: string;
  footer: string;
  time_zone: string;
  noindex?: string;
  theme: string;
}

/** POST /admin/settings: the whole form (a checkbox not sent is unchecked); empty fields mean the default. */
export const settingsForm = Joi.object<SettingsForm>({
  title: title.required().label(labels.title),
  tagline: tagline.default('').label(labels.tagline),
  accent_colour: colour.allow('').default('').label(labels.accent_colour),
  home_page_id: Joi.string()
    .pattern(/^[1-9][0-9]{0,9}$/)
    .allow('')
    .default('')
    .label(labels.home_page_id),
  footer: footer.default('').label(labels.footer),
  time_zone: timeZone.allow('').default('').label(labels.time_zone),
  noindex: Joi.string().valid('on', '1', 'true'),
  theme: theme.default('default').label(labels.theme),
});

/** The form as a patch of every field. */
export function patchOfForm(form: SettingsForm): SettingsPatch {
  return {
    title: form.title,
    tagline: form.tagline,
    accent_colour: form.accent_colour || null,
    home_page_id: form.home_page_id ? Number(form.home_page_id) : null,
    footer: form.footer,
    time_zone: form.time_zone || null,
    noindex: form.noindex !== undefined,
    theme: form.theme,
  };
}

/** `/app/api/admin/settings/:image` and `/admin/settings/:image…`: which image. */
export const imageParams = Joi.object<{ image: 'logo' | 'favicon' | 'social-image' }>({
  image: Joi.string().valid('logo', 'favicon', 'social-image').required(),
});

/** /site-accent/<rrggbb>.css */
export const accentParams = Joi.object<{ file: string }>({
  file: Joi.string()
    .pattern(/^[0-9a-f]{6}\.css$/)
    .required(),
});
