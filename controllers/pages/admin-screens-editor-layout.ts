// What the editor's layout needs beyond the document (views/pages/admin/pages/edit.njk,
// _properties.njk): which property sections open, the full address the page has or
// will have, the bar's «last saved» line, and the JSON answers of the script's autosave.
import { frenchDates } from '../../lib/dates.js';
import type { PageAuthors } from '../../models/pages/authors.js';
import type { Draft } from '../../models/pages/drafts.js';
import type { AnyCall } from '../../routes/define.js';
import type { ParentPicker } from './admin-parent-picker.js';
import { editorLayoutMessages } from './messages.js';

/** The property sections (<details>) of the side panel, by the form fields they hold. */
const SECTION_OF_FIELD: Record<string, string> = {
  slug: 'address',
  parent_id: 'parent',
  template: 'display',
  visibility: 'display',
  seo_title: 'seo',
  seo_description: 'seo',
  seo_noindex: 'seo',
  seo_image: 'seo',
  created_at: 'created',
  schedule_at: 'schedule',
};

/**
 * The sections shown open: those holding a refused field (a message must never hide in
 * a folded section), the parent's after a search, the schedule while one is pending.
 */
export function openedSections(fieldErrors: Record<string, string>, picker: ParentPicker, scheduled: boolean): Record<string, boolean> {
  const opened: Record<string, boolean> = {};
  for (const field of Object.keys(fieldErrors)) {
    const section = SECTION_OF_FIELD[field];
    if (section) opened[section] = true;
  }
  if (picker.searched) opened.parent = true;
  if (scheduled) opened.schedule = true;
  return opened;
}

/** The page's address as people use it: the site's URL, the parent's path, then the page's own part. */
export function addressOf(baseUrl: string, picker: ParentPicker): { prefix: string; parentLabel: string } {
  const parentPath = picker.current?.path ?? '';
  return { prefix: `${baseUrl}${parentPath}/`, parentLabel: picker.current?.title ?? editorLayoutMessages.noParent };
}

/** «10 h 42» today, «le 25 novembre 2026 à 10 h 42» another day, in the site's zone. */
function whenSaid(timeZone: string, at: Date, now: Date): string {
  const dates = frenchDates(timeZone);
  return dates.date(at) === dates.date(now) ? `à ${dates.time(at)}` : `le ${dates.dateTime(at)}`;
}

/** The bar's line on the newest save: «Brouillon enregistré à 10 h 42 par Claire Martin». */
export function savedLine(timeZone: string, authors: PageAuthors | undefined, draft: boolean, now: Date): string {
  if (!authors?.savedAt) return '';
  return editorLayoutMessages.saved(draft, whenSaid(timeZone, authors.savedAt, now), authors.savedBy);
}

/**
 * An autosave's answer: the revision the form now stands on, the ids given to new blocks
 * (in the form's order: an autosave is never merged), and the bar's line.
 */
export function autosaved(call: AnyCall, draft: Draft): void {
  const zone = call.ctx.config.timeZone;
  call.res.json({
    revision: draft.revision,
    draft_revision: draft.draft_revision,
    saved_at: call.ctx.clock.now().toISOString(),
    block_ids: draft.blocks.map((block) => block.id ?? ''),
    message: editorLayoutMessages.autosaved(frenchDates(zone).time(call.ctx.clock.now())),
  });
}

/** «Aperçu» with a script: the draft saved for it, and where its preview is (the script opens it in a new tab). */
export function previewed(call: AnyCall, draft: Draft & { merged?: boolean }, previewPath: string): void {
  call.res.json({
    revision: draft.revision,
    merged: Boolean(draft.merged),
    block_ids: draft.blocks.map((block) => block.id ?? ''),
    preview_url: previewPath,
    message: editorLayoutMessages.savedForPreview(frenchDates(call.ctx.config.timeZone).time(call.ctx.clock.now())),
  });
}
