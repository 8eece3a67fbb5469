// The summary at the top of a refused form: a title, then one link per field in error
// to that field (views/auth/_form.njk, views/admin/_form.njk). Each field's own message
// stays beside the field, so the summary names the fields rather than repeating their
// messages, and its title is the refusal's message only when no field already says it.
import type { ErrorDetail } from '../lib/errors.js';

/** A field's name for the summary (the site's modules declare theirs: fieldLabels). */
export type FieldLabels = ReadonlyMap<string, string>;

export interface ErrorSummary {
  title: string;
  fields: Array<{ name: string; label: string; message: string }>;
}

// Names of the core's fields whose messages come from a model rather than from a
// labelled joi schema (joi's messages start with the label between « »); the core
// module declares them (routes/core-module.ts), as each module declares its own.
export const CORE_FIELD_LABELS: Record<string, string> = {
  name: 'Nom',
  email: 'Courriel',
  password: 'Mot de passe',
  newPassword: 'Mot de passe',
  new_password: 'Nouveau mot de passe',
  confirmPassword: 'Confirmation du mot de passe',
  confirm_password: 'Confirmation du nouveau mot de passe',
  current_password: 'Mot de passe actuel',
  setupCode: 'Code d’installation',
  code: 'Code de vérification',
  token: 'Code du lien',
  permissions: 'Permissions',
  role: 'Rôle',
  role_id: 'Rôle',
  file: 'Fichier',
  image: 'Image',
};

function labelOf(detail: ErrorDetail, labels: FieldLabels): string {
  const quoted = /^«\s*([^»]{1,80}?)\s*»/.exec(detail.message)?.[1];
  if (quoted) return quoted;
  const base = detail.field.split('.')[0];
  return labels.get(detail.field) ?? labels.get(base) ?? detail.field;
}

/** «1 champ à corriger», «3 champs à corriger». */
function countTitle(count: number): string {
  return count === 1 ? '1 champ à corriger' : `${count} champs à corriger`;
}

export function errorSummaryOf(message: string, details: ErrorDetail[] | undefined, labels: FieldLabels): ErrorSummary {
  const fields: ErrorSummary['fields'] = [];
  const messages = new Set<string>();
  for (const detail of details ?? []) {
    if (!detail.field || fields.some((field) => field.name === detail.field)) continue;
    fields.push({ name: detail.field, label: labelOf(detail, labels), message: detail.message });
    messages.add(detail.message);
  }
  const title = fields.length > 0 && messages.has(message) ? countTitle(fields.length) : message;
  return { title, fields };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * A page may not show every field its schema checks (a form showing part of them): a
 * summary link to a field the page does not show gives way to the field's message, so
 * no message is ever lost. Fields are found by the ids the macros give a field in error.
 */
export function completeErrorSummary(html: string, summary: ErrorSummary): string {
  let result = html;
  for (const field of summary.fields) {
    if (result.includes(`id="field-${field.name}"`) || result.includes(`id="f-${field.name}"`)) continue;
    const item = new RegExp(`<li data-summary-field="${field.name.replace(/[^\w.-]/g, '')}">[\\s\\S]*?</li>`);
    result = result.replace(item, `<li>${escapeHtml(field.label)}\u00a0: ${escapeHtml(field.message)}</li>`);
  }
  return result;
}
