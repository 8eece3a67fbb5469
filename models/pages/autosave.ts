// Autosave (issue 23): the editor saves the draft a few seconds after typing stops. So
// that history stays readable, an autosave by the same person within ten minutes of the
// autosaved draft revision it continues updates that revision instead of adding one; an
// explicit save, a publication, another person's save, a preview link naming the
// revision or another editor having the page open starts a new one.
//
// The continued revision takes the next number (its row renumbered, the page's revision
// moved on), so a tab still holding the old number is stale, as after any save, and
// cannot overwrite what was autosaved since.
import type { AppContext } from '../../lib/context.js';
import type { Actor } from '../audit.js';
import type { PageRow } from '../../lib/tables.js';
import { othersPresent } from './presence.js';
import type { Draft } from './drafts.js';
import { REVISIONS_TABLE, type DraftMeta, type PageContent } from './revision-store.js';
import { PAGES_TABLE } from './schema.js';

/** How long after its first save an autosaved revision may still be continued. */
const CONTINUE_WITHIN_MS = 10 * 60_000;

type LockedPage = Pick<PageRow, 'id' | 'revision' | 'draft_revision' | 'scheduled_at'>;

/** Whether this autosave may continue the pending draft's revision (no statement unless it might). */
async function continues(tx: AppContext, page: LockedPage, meta: DraftMeta | null, actor: Actor): Promise<boolean> {
  if (!meta || page.draft_revision === null || page.draft_revision !== page.revision) return false;
  if (meta.autosaved_at === null || meta.author_id !== actor.id || meta.preview_until !== null) return false;
  if (meta.recorded_at.getTime() <= tx.clock.nowMs() - CONTINUE_WITHIN_MS) return false;
  return !(await othersPresent(tx, page.id, actor.id));
}

/**
 * Writes `content` over the pending autosaved draft revision, renumbered as the page's
 * next, when the rules above allow it (the page's row is locked by the caller); null
 * when a new revision is to be written instead. Three statements at most, whatever the
 * number of blocks.
 */
export async function continueAutosave(tx: AppContext, page: LockedPage, meta: DraftMeta | null, content: PageContent, actor: Actor): Promise<Draft | null> {
  if (!(await continues(tx, page, meta, actor))) return null;
  const number = page.revision + 1;
  const now = tx.clock.now();
  await tx
    .db(REVISIONS_TABLE)
    .where({ page_id: page.id, number: page.revision })
    .update({
      number,
      title: content.title,
      slug: content.slug,
      parent_id: content.parent_id,
      template: content.template,
      blocks: JSON.stringify(content.blocks ?? []),
      seo: JSON.stringify(content.seo ?? {}),
      visibility: content.visibility,
      created_at: content.created_at,
      autosaved_at: now,
    });
  await tx.db(PAGES_TABLE).where({ id: page.id }).update({ revision: number, draft_revision: number });
  return {
    id: page.id,
    ...content,
    revision: number,
    draft_revision: number,
    author_id: actor.id,
    recorded_at: meta!.recorded_at,
    scheduled_at: page.scheduled_at,
  };
}
