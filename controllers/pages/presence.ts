// Who has a page open in the editor (issue 23, presence), in JSON and for the screens.
// POST /app/api/admin/pages/:id/presence is the editor's heartbeat; the GETs list the
// others (never the asker): one page's for its editor, every page's for the tree.
import { frenchDates } from '../../lib/dates.js';
import type { AppContext } from '../../lib/context.js';
import { editorsByPage, pageEditors, recordPresence, type PageEditor } from '../../models/pages/presence.js';
import type { AnyCall, Call } from '../../routes/define.js';
import { presenceMessages } from './messages.js';

export interface PresentEditor {
  id: number;
  name: string;
  /** ISO 8601, UTC: when this continuous presence began. */
  since: string;
  /** «Claire Martin modifie cette page depuis 10 h 42», in the site's zone. */
  message: string;
}

/** The editors as the JSON and the screens show them. */
function presentEditors(ctx: AppContext, editors: PageEditor[]): PresentEditor[] {
  const dates = frenchDates(ctx.config.timeZone);
  const today = dates.date(ctx.clock.now());
  return editors.map((editor) => {
    const sameDay = dates.date(editor.since) === today;
    const when = sameDay ? dates.time(editor.since) : dates.dateTime(editor.since);
    return { id: editor.id, name: editor.name, since: editor.since.toISOString(), message: presenceMessages.editing(editor.name, when, sameDay) };
  });
}

/** The others on one page, for the editor's screen (an unknown page is a NotFoundError). */
export async function othersOnPage(call: AnyCall, pageId: number): Promise<PresentEditor[]> {
  return presentEditors(call.ctx, await pageEditors(call.ctx, pageId, call.origin.userId));
}

/** The others on every page, by page id, for the tree's rows. */
export async function othersByPage(call: AnyCall): Promise<Record<number, string>> {
  const lines: Record<number, string> = {};
  for (const [pageId, editors] of await editorsByPage(call.ctx, call.origin.userId)) {
    lines[pageId] = presentEditors(call.ctx, editors)
      .map((editor) => editor.message)
      .join(' ; ');
  }
  return lines;
}

// POST /app/api/admin/pages/:id/presence {} — the editor's heartbeat; answers who else is there.
export async function heartbeat(call: Call<{ id: number }>): Promise<void> {
  await recordPresence(call.ctx, call.params.id, call.origin.userId!);
  call.res.json({ editors: await othersOnPage(call, call.params.id) });
}

// GET /app/api/admin/pages/:id/presence — {editors: [{id, name, since, message}]}, the asker left out.
export async function showPresence(call: Call<{ id: number }>): Promise<void> {
  call.res.json({ editors: await othersOnPage(call, call.params.id) });
}

// GET /app/api/admin/pages/presence — {items: [{page_id, editors}]}: every page someone else has open.
export async function listPresence(call: Call): Promise<void> {
  const items = [];
  for (const [pageId, editors] of await editorsByPage(call.ctx, call.origin.userId)) {
    items.push({ page_id: pageId, editors: presentEditors(call.ctx, editors) });
  }
  call.res.json({ items });
}
