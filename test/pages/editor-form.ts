// What a browser without JavaScript would send from the page editor: every field of
// the form #page-editor as rendered (checked radios and boxes, selected options,
// textareas), in document order, then the chosen button's `action`.
import type { AdminClient } from '../support/admin-client.js';

const decode = (value: string) =>
  value
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

function attributes(source: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of source.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)")?/g)) found[match[1]] = decode(match[2] ?? '');
  return found;
}

export type Fields = Array<[string, string]>;

/** The fields of the form `id` in `html`, as the browser would submit them. */
export function formFields(html: string, id = 'page-editor'): Fields {
  const start = html.indexOf(`<form id="${id}"`);
  if (start < 0) throw new Error(`no form #${id}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields: Fields = [];
  const tokens = /<input\b([^>]*)>|<textarea\b([^>]*)>([\s\S]*?)<\/textarea>|<select\b([^>]*)>([\s\S]*?)<\/select>/g;
  for (const match of form.matchAll(tokens)) {
    if (match[1] !== undefined) {
      const attrs = attributes(match[1]);
      const type = attrs.type ?? 'text';
      if (!attrs.name || type === 'submit' || type === 'button') continue;
      if ((type === 'radio' || type === 'checkbox') && !('checked' in attrs)) continue;
      fields.push([attrs.name, attrs.value ?? (type === 'checkbox' ? 'on' : '')]);
    } else if (match[2] !== undefined) {
      const attrs = attributes(match[2]);
      if (attrs.name) fields.push([attrs.name, decode(match[3])]);
    } else {
      const attrs = attributes(match[4]);
      const options = [...match[5].matchAll(/<option\b([^>]*)>/g)].map((option) => attributes(option[1]));
      const chosen = options.find((option) => 'selected' in option) ?? options[0];
      if (attrs.name && chosen) fields.push([attrs.name, chosen.value ?? '']);
    }
  }
  return fields;
}

/** Sets (replaces) a field's value; throws when the form has no such field. */
export function setField(fields: Fields, name: string, value: string): Fields {
  const index = fields.findIndex(([key]) => key === name);
  if (index < 0) throw new Error(`no field ${name} in the form`);
  fields[index] = [name, value];
  return fields;
}

export function fieldValue(fields: Fields, name: string): string | undefined {
  return fields.find(([key]) => key === name)?.[1];
}

/** Posts the fields as the browser would (urlencoded, repeated names kept in order), with the button's action. */
export async function submitEditor(client: AdminClient, pageId: number, fields: Fields, action = 'save') {
  const grouped: Record<string, string[]> = {};
  for (const [name, value] of [...fields, ['action', action] as [string, string]]) (grouped[name] ??= []).push(value);
  return client.postRaw(`/admin/pages/${pageId}`, grouped);
}
