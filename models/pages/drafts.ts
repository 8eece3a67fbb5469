// Drafts of a page: content saved without going live. A draft is a revision row that
// app_pages.draft_revision points at; the live columns of app_pages are left alone, so
// the public reads (which read app_pages only) never see it and cost what they cost.
// Publishing writes the draft's content through updatePage (the live write: slugs,
// cycles, moves, audit), as a new revision; a schedule only sets when that happens.
import { continueAutosave } from './autosave.js';
import { inTransaction, type AppContext } from '../../lib/context.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { recordAudit, sourceOfActor, type Actor } from '../audit.js';
import { createPageCatalog, type PageCatalog } from './catalog.js';
import { mergeContent, type MergeResult } from './merge.js';
import { pageMessages, revisionMessages } from './messages.js';
import { assertMediaExist, assertParentExists, isSelfOrAncestor, lockTreeMoves, pageTarget, updatePage, type Page, type PagePatch } from './pages.js';
import { contentPatch, mergedContent, type MergeOutcome } from './merged-writes.js';
import {
  CONTENT_COLUMNS,
  contentOf,
  insertRevision,
  lockPageRevision,
  lockPageWithDraft,
  currentContent,
  findMergeBase,
  readMergeBase,
  REVISIONS_TABLE,
  type CurrentContent,
  type PageContent,
  type RevisionRowRead,
} from './revision-store.js';
import { checkBlocks, checkRootSlug, checkSeo, checkSlug, checkTemplate, cleanTitle, fieldError, parseCreatedAt } from './rules.js';
import { PAGES_TABLE } from './schema.js';

/** A pending draft: the page's content as the draft holds it. */
export interface Draft extends PageContent {
  /** The page's id. */
  id: number;
  /** The page's newest revision: what the next write carries as `if_revision`. */
  revision: number;
  /** The draft's own revision number. */
  draft_revision: number;
  /** Who saved the draft last, and when. */
  author_id: number | null;
  recorded_at: Date;
  scheduled_at: Date | null;
}

export type PageState = 'published' | 'draft' | 'scheduled' | 'private';

/** The tree screen's state of a page: a scheduled or pending draft first, then private or published. */
export function pageState(row: { visibility: string; draft_revision?: number | null; scheduled_at?: Date | string | null }): PageState {
  if (row.scheduled_at) return 'scheduled';
  if (row.draft_revision !== null && row.draft_revision !== undefined) return 'draft';
  return row.visibility === 'private' ? 'private' : 'published';
}

export async function getDraft(ctx: AppContext, pageId: number): Promise<Draft> {
  const row: (Pick<Page, 'id' | 'revision' | 'draft_revision' | 'scheduled_at'> & Partial<RevisionRowRead>) | undefined = await ctx
    .db(`${PAGES_TABLE} as p`)
    .leftJoin(`${REVISIONS_TABLE} as r`, function () {
      this.on('r.page_id', '=', 'p.id').andOn('r.number', '=', 'p.draft_revision');
    })
    .where('p.id', pageId)
    .first([
      'p.id',
      'p.revision',
      'p.draft_revision',
      'p.scheduled_at',
      'r.number',
      'r.author_id',
      'r.recorded_at',
      ...CONTENT_COLUMNS.map((column) => `r.${column}`),
    ]);
  if (!row) throw new NotFoundError(pageMessages.pageNotFound);
  if (row.number === null || row.number === undefined) throw new NotFoundError(revisionMessages.draftNotFound);
  const revision = row as RevisionRowRead;
  return draftOf(row.id, row.revision, revision.number, row.scheduled_at, revision, revision.author_id, revision.recorded_at);
}

function draftOf(
  pageId: number,
  revision: number,
  number: number,
  scheduledAt: Date | null,
  content: Parameters<typeof contentOf>[0],
  authorId: number | null,
  recordedAt: Date,
): Draft {
  return { id: pageId, ...contentOf(content), revision, draft_revision: number, author_id: authorId, recorded_at: recordedAt, scheduled_at: scheduledAt };
}

/** The patch's fields checked by the page rules (what updatePage checks before locking). */
function checkedPatch(ctx: AppContext, patch: PagePatch, catalog: PageCatalog): Partial<PageContent> {
  const changes: Partial<PageContent> = {};
  if (patch.title !== undefined) changes.title = cleanTitle(patch.title);
  if (patch.slug !== undefined) changes.slug = checkSlug(patch.slug);
  if (patch.parent_id !== undefined) changes.parent_id = patch.parent_id;
  if (patch.template !== undefined) changes.template = checkTemplate(catalog, patch.template);
  if (patch.blocks !== undefined) changes.blocks = checkBlocks(catalog, patch.blocks);
  if (patch.seo !== undefined) changes.seo = checkSeo(patch.seo);
  if (patch.visibility !== undefined) changes.visibility = patch.visibility;
  if (patch.created_at !== undefined) changes.created_at = parseCreatedAt(patch.created_at, ctx.clock.now());
  return changes;
}

/**
 * Writes `content` as the page's new draft revision (the page's row is locked by the
 * caller). One INSERT and one UPDATE, whatever the number of blocks.
 */
async function storeDraft(
  tx: AppContext,
  page: { id: number; revision: number; scheduled_at: Date | null },
  content: PageContent,
  actor: Actor | null,
  autosave = false,
): Promise<Draft> {
  const number = page.revision + 1;
  await insertRevision(tx, page.id, number, content, actor?.id ?? null, autosave);
  await tx.db(PAGES_TABLE).where({ id: page.id }).update({ revision: number, draft_revision: number });
  return {
    id: page.id,
    ...content,
    revision: number,
    draft_revision: number,
    author_id: actor?.id ?? null,
    recorded_at: tx.clock.now(),
    scheduled_at: page.scheduled_at,
  };
}

/** The rules a draft's place obeys, checked when the place changes (again at publication). */
async function checkPlace(tx: AppContext, pageId: number, base: PageContent, next: PageContent): Promise<void> {
  const moved = next.parent_id !== base.parent_id;
  if (moved && next.parent_id !== null) {
    if (next.parent_id === pageId) throw fieldError('parent_id', pageMessages.cycle);
    await assertParentExists(tx, next.parent_id);
    if (await isSelfOrAncestor(tx, pageId, next.parent_id)) throw fieldError('parent_id', pageMessages.cycle);
  }
  if (moved || next.slug !== base.slug) checkRootSlug(next.slug, next.parent_id);
}

/**
 * Saves a draft: `patch` (partial, as PUT's body) on top of the pending draft or, when
 * there is none, of the live page. Nothing public changes.
 */
export async function saveDraft(
  ctx: AppContext,
  pageId: number,
  patch: PagePatch,
  actor: Actor | null = null,
  catalog: PageCatalog = createPageCatalog(),
  ifRevision?: number,
  options: { merge?: boolean; autosave?: boolean } = {},
): Promise<Draft & MergeOutcome> {
  const changes = checkedPatch(ctx, patch, catalog);
  return inTransaction(ctx, async (tx) => {
    const { page, draft: pending, draftMeta, stale } = await lockPageWithDraft(tx, pageId, ifRevision, options.merge);
    const current = pending ?? contentOf(page);
    const base = stale ? await readMergeBase(tx, pageId, ifRevision!, false) : undefined;
    const next = base ? await mergedContent(tx, pageId, base.content, changes, current) : { ...current, ...changes };
    await checkPlace(tx, pageId, current, next);
    if (changes.blocks) await assertMediaExist(tx, next.blocks);
    // An autosave continuing its own recent revision rewrites it, unaudited: its first save was.
    const continued = options.autosave && !stale && actor ? await continueAutosave(tx, page, draftMeta, next, actor) : null;
    const draft = continued ?? (await storeDraft(tx, page, next, actor, options.autosave));
    if (!continued) {
      await recordAudit(tx, {
        ...sourceOfActor(actor),
        action: 'page.draft_saved',
        target: pageTarget({ id: pageId, title: next.title }),
        details: {
          revision: draft.draft_revision,
          fields: Object.keys(changes),
          ...(stale ? { merged_from: ifRevision } : {}),
          ...(options.autosave ? { autosave: true } : {}),
        },
      });
    }
    return options.merge ? { ...draft, merged: stale, ...(base ? { merged_with: base.others } : {}) } : draft;
  });
}

/** What a stale draft save merges to, written nowhere: the editor's conflict screen. */
export interface DraftMergePreview {
  current: CurrentContent;
  /** The base with the save's changes on top. */
  mine: PageContent;
  result: MergeResult;
  /** Who wrote since the base. */
  others: string[];
}

/** The merge a draft save based on `ifRevision` meets (null when that revision is gone). */
export async function previewDraftMerge(
  ctx: AppContext,
  pageId: number,
  patch: PagePatch,
  catalog: PageCatalog,
  ifRevision: number,
): Promise<DraftMergePreview | null> {
  const changes = checkedPatch(ctx, patch, catalog);
  const [current, base] = await Promise.all([currentContent(ctx, pageId), findMergeBase(ctx, pageId, ifRevision, false)]);
  if (!base) return null;
  const mine = { ...base.content, ...changes };
  return { current, mine, result: mergeContent(base.content, mine, current), others: base.others };
}

/** Copies revision `number` into the page's draft (a new revision); the live page is unchanged. */
export async function restoreRevision(ctx: AppContext, pageId: number, number: number, actor: Actor | null = null): Promise<Draft> {
  return inTransaction(ctx, async (tx) => {
    const page = await lockPageRevision(tx, pageId, undefined, ['title']);
    const source = await tx
      .db(REVISIONS_TABLE)
      .where({ page_id: pageId, number })
      .first([...CONTENT_COLUMNS]);
    if (!source) throw new NotFoundError(revisionMessages.revisionNotFound);
    const draft = await storeDraft(tx, page, contentOf(source), actor);
    await recordAudit(tx, {
      ...sourceOfActor(actor),
      action: 'page.revision_restored',
      target: pageTarget({ id: pageId, title: page.title }),
      details: { from_revision: number, revision: draft.draft_revision },
    });
    return draft;
  });
}

export async function discardDraft(ctx: AppContext, pageId: number, actor: Actor | null = null): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const page = await lockPageRevision(tx, pageId, undefined, ['title']);
    if (page.draft_revision === null) throw new NotFoundError(revisionMessages.draftNotFound);
    // Without its draft a never-published page would have no content at all.
    if (page.published_revision === null) throw new ConflictError(revisionMessages.neverPublishedDiscard, { code: 'never_published' });
    await tx.db(PAGES_TABLE).where({ id: pageId }).update({ draft_revision: null, scheduled_at: null, scheduled_by: null });
    await recordAudit(tx, {
      ...sourceOfActor(actor),
      action: 'page.draft_discarded',
      target: pageTarget({ id: pageId, title: page.title }),
      details: { revision: page.draft_revision, was_scheduled: page.scheduled_at !== null },
    });
  });
}

/**
 * Publishes the pending draft now: its content becomes the live page (a new revision,
 * the published one) and the draft and its schedule are cleared. `scheduled`: the
 * scheduler publishes (recorded as such, by whoever scheduled it).
 */
export async function publishDraft(
  ctx: AppContext,
  pageId: number,
  actor: Actor | null = null,
  ifRevision?: number,
  catalog: PageCatalog = createPageCatalog(),
  options: { scheduled?: boolean } = {},
): Promise<Page> {
  return inTransaction(ctx, async (tx) => {
    // A draft may move the page: the moves' lock comes before the row's, as in updatePage.
    await lockTreeMoves(tx);
    const { page, draft } = await lockPageWithDraft(tx, pageId, ifRevision);
    if (!draft) throw new NotFoundError(revisionMessages.draftNotFound);
    const patch = contentPatch(contentOf(page), draft);
    return updatePage(tx, pageId, patch, actor, catalog, {
      action: options.scheduled ? 'page.scheduled_published' : 'page.draft_published',
      clearDraft: true,
    });
  });
}

/** The latest time a schedule may name (a timestamptz holds more; nobody plans that far). */
const SCHEDULE_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/** Sets when the pending draft goes live: a time in the future of the application clock. */
export async function schedulePublication(
  ctx: AppContext,
  pageId: number,
  at: Date,
  actor: Actor | null = null,
  ifRevision?: number,
): Promise<{ scheduled_at: Date }> {
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw fieldError('at', revisionMessages.scheduleInvalid);
  if (at.getTime() <= ctx.clock.nowMs()) throw fieldError('at', revisionMessages.scheduleInPast);
  if (at.getTime() > SCHEDULE_MAX_MS) throw fieldError('at', revisionMessages.scheduleTooFar);
  return inTransaction(ctx, async (tx) => {
    const page = await lockPageRevision(tx, pageId, ifRevision, ['title']);
    if (page.draft_revision === null) throw new NotFoundError(revisionMessages.draftNotFound);
    await tx
      .db(PAGES_TABLE)
      .where({ id: pageId })
      .update({ scheduled_at: at, scheduled_by: actor?.id ?? null });
    await recordAudit(tx, {
      ...sourceOfActor(actor),
      action: 'page.scheduled',
      target: pageTarget({ id: pageId, title: page.title }),
      details: { revision: page.draft_revision, scheduled_at: at.toISOString() },
    });
    return { scheduled_at: at };
  });
}

export async function cancelSchedule(ctx: AppContext, pageId: number, actor: Actor | null = null): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const page = await lockPageRevision(tx, pageId, undefined, ['title']);
    if (page.scheduled_at === null) throw new NotFoundError(revisionMessages.scheduleNotFound);
    await tx.db(PAGES_TABLE).where({ id: pageId }).update({ scheduled_at: null, scheduled_by: null });
    await recordAudit(tx, {
      ...sourceOfActor(actor),
      action: 'page.schedule_cancelled',
      target: pageTarget({ id: pageId, title: page.title }),
      details: { revision: page.draft_revision, scheduled_at: new Date(page.scheduled_at).toISOString() },
    });
  });
}
