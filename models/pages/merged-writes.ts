// What a merged write shares between the live write (pages.ts) and the draft save
// (drafts.ts): the merge of a stale save with what the page holds now (a clash is a 409
// listing the clashing fields, nothing written) and the patch that turns one content
// into another (a publication, a merged live write).
import type { AppContext } from '../../lib/context.js';
import { RevisionConflictError } from '../../lib/errors.js';
import { mergeContent, same } from './merge.js';
import { revisionMessages } from './messages.js';
import type { PagePatch } from './pages.js';
import { currentContent, type PageContent } from './revision-store.js';

/** What a write asked to merge answers besides the page: whether it merged, and with whose writes. */
export interface MergeOutcome {
  merged?: boolean;
  /** The names of the accounts whose revisions the save was merged with. */
  merged_with?: string[];
}

/** The fields of `to` that differ from `from`, as updatePage's patch (a publication, a merged live write). */
export function contentPatch(from: PageContent, to: PageContent): PagePatch {
  const patch: PagePatch = {};
  if (to.title !== from.title) patch.title = to.title;
  if (to.slug !== from.slug) patch.slug = to.slug;
  if (to.parent_id !== from.parent_id) patch.parent_id = to.parent_id;
  if (to.template !== from.template) patch.template = to.template;
  if (!same(to.blocks, from.blocks)) patch.blocks = to.blocks;
  if (!same(to.seo, from.seo)) patch.seo = to.seo;
  if (to.visibility !== from.visibility) patch.visibility = to.visibility;
  if (new Date(to.created_at).getTime() !== new Date(from.created_at).getTime()) patch.created_at = new Date(to.created_at).toISOString();
  return patch;
}

/**
 * A stale write merged: `changes` were made on `base`, the page holds `current` now.
 * A clash of the two answers 409 with the conflicting fields and blocks, nothing written.
 */
export async function mergedContent(
  tx: AppContext,
  pageId: number,
  base: PageContent,
  changes: Partial<PageContent>,
  current: PageContent,
): Promise<PageContent> {
  const { content, conflicts } = mergeContent(base, { ...base, ...changes }, current);
  if (conflicts.length) throw new RevisionConflictError(revisionMessages.mergeConflict, await currentContent(tx, pageId), conflicts);
  return content;
}
