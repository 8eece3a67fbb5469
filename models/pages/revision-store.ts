// The statements every revision-recording write shares: insert a revision row, lock a
// page and check the revision a write was based on, and read what a conflict answers
// with. Live writes (models/pages/pages.ts) and drafts (drafts.ts) both use them.
import type { AppContext } from '../../lib/context.js';
import { NotFoundError, RevisionConflictError } from '../../lib/errors.js';
import type { PageRevisionRow, PageRow } from '../../lib/tables.js';
import type { Block } from './blocks.js';
import { pageMessages, revisionMessages } from './messages.js';
import { PAGES_TABLE } from './schema.js';

export const REVISIONS_TABLE = 'app_page_revisions';

/** What a revision holds of a page: its content fields. */
export interface PageContent {
  title: string;
  slug: string;
  parent_id: number | null;
  template: string;
  blocks: Block[];
  seo: Record<string, unknown>;
  visibility: 'public' | 'private';
  created_at: Date;
}

export const CONTENT_COLUMNS = ['title', 'slug', 'parent_id', 'template', 'blocks', 'seo', 'visibility', 'created_at'] as const;

/** The columns of app_pages that say where a page stands among its revisions. */
export const REVISION_STATE_COLUMNS = ['revision', 'published_revision', 'draft_revision', 'scheduled_at', 'scheduled_by'] as const;

export type RevisionState = 'published' | 'draft' | 'scheduled' | 'superseded';

/** A revision's content with its number, author and time, as the joined reads select it. */
export type RevisionRowRead = Pick<PageRevisionRow, (typeof CONTENT_COLUMNS)[number] | 'number' | 'author_id' | 'recorded_at'>;

export interface PageRevisionState {
  revision: number;
  published_revision: number | null;
  draft_revision: number | null;
  scheduled_at: Date | null;
}

/** One statement: the row numbered `number` of page `pageId`, holding `content`. */
export async function insertRevision(
  tx: AppContext,
  pageId: number,
  number: number,
  content: PageContent,
  authorId: number | null,
  autosave = false,
): Promise<void> {
  await tx.db(REVISIONS_TABLE).insert({
    page_id: pageId,
    number,
    title: content.title,
    slug: content.slug,
    parent_id: content.parent_id,
    template: content.template,
    blocks: JSON.stringify(content.blocks ?? []),
    seo: JSON.stringify(content.seo ?? {}),
    visibility: content.visibility,
    created_at: content.created_at,
    author_id: authorId,
    recorded_at: tx.clock.now(),
    ...(autosave ? { autosaved_at: tx.clock.now() } : {}),
  });
}

/** What an autosave needs to know of the pending draft's revision. */
export interface DraftMeta {
  author_id: number | null;
  recorded_at: Date;
  autosaved_at: Date | null;
  preview_until: Date | null;
}

export function revisionState(page: PageRevisionState, number: number): RevisionState {
  if (number === page.draft_revision) return page.scheduled_at ? 'scheduled' : 'draft';
  if (number === page.published_revision) return 'published';
  return 'superseded';
}

export function contentOf(row: Pick<PageRow, (typeof CONTENT_COLUMNS)[number]>): PageContent {
  return {
    title: row.title,
    slug: row.slug,
    parent_id: row.parent_id,
    template: row.template,
    blocks: Array.isArray(row.blocks) ? row.blocks : [],
    seo: row.seo ?? {},
    visibility: row.visibility,
    created_at: row.created_at,
  };
}

/** The page's content now, with the revision a new write must carry and where that content stands. */
export type CurrentContent = PageContent & {
  id: number;
  revision: number;
  state: RevisionState;
  scheduled_at: Date | null;
};

/**
 * The page's content now, as a conflict answers it: its pending draft when it has one,
 * else the live page; with the revision a new write must carry.
 */
export async function currentContent(tx: AppContext, pageId: number): Promise<CurrentContent> {
  const page = await tx.db(PAGES_TABLE).where({ id: pageId }).first();
  if (!page) throw new NotFoundError(pageMessages.pageNotFound);
  let content: PageContent = contentOf(page);
  if (page.draft_revision !== null) {
    const draft = await tx.db(REVISIONS_TABLE).where({ page_id: pageId, number: page.draft_revision }).first();
    if (draft) content = contentOf(draft);
  }
  return {
    id: pageId,
    ...content,
    revision: page.revision,
    state: page.draft_revision !== null ? revisionState(page, page.draft_revision) : 'published',
    scheduled_at: page.scheduled_at,
  };
}

/**
 * Locks the page's row for the writing transaction and checks the revision the write
 * was based on (`undefined`: a client that sends none, as SPEC's do; never refused).
 * Returns the locked row's revision columns and the given columns.
 */
export async function lockPageRevision<K extends keyof PageRow>(
  tx: AppContext,
  pageId: number,
  ifRevision: number | undefined,
  columns: readonly K[] = [],
): Promise<Pick<PageRow, K | 'id' | 'revision' | 'published_revision' | 'draft_revision' | 'scheduled_at' | 'scheduled_by'>> {
  const row = await tx
    .db(PAGES_TABLE)
    .where({ id: pageId })
    .forUpdate()
    .first([...new Set(['id', ...REVISION_STATE_COLUMNS, ...columns])] as Array<keyof PageRow>);
  if (!row) throw new NotFoundError(pageMessages.pageNotFound);
  if (ifRevision !== undefined && ifRevision !== row.revision) {
    throw new RevisionConflictError(revisionMessages.conflict, await currentContent(tx, pageId));
  }
  return row;
}

/**
 * As lockPageRevision, reading the live content and the pending draft's content with
 * it in the same statement (the draft's columns are null without one): a draft save
 * costs the same whether a draft exists or not.
 */
export async function lockPageWithDraft(
  tx: AppContext,
  pageId: number,
  ifRevision: number | undefined,
  merge = false,
): Promise<{
  page: Pick<PageRow, (typeof CONTENT_COLUMNS)[number] | 'id' | (typeof REVISION_STATE_COLUMNS)[number]>;
  draft: PageContent | null;
  /** Who wrote the pending draft and how (an autosave may continue it in place). */
  draftMeta: DraftMeta | null;
  /** The write was based on an older revision (only with `merge`: otherwise that is a 409). */
  stale: boolean;
}> {
  const { rows } = await tx.db.raw<{ rows: Array<Record<string, unknown>> }>(
    `SELECT ${['id', ...REVISION_STATE_COLUMNS, ...CONTENT_COLUMNS].map((column) => `p.${column}`).join(', ')},
            ${CONTENT_COLUMNS.map((column) => `r.${column} AS draft_${column}`).join(', ')}, r.number AS draft_number,
            r.author_id AS draft_author_id, r.recorded_at AS draft_recorded_at, r.autosaved_at AS draft_autosaved_at,
            r.preview_until AS draft_preview_until
     FROM ${PAGES_TABLE} p
     LEFT JOIN ${REVISIONS_TABLE} r ON r.page_id = p.id AND r.number = p.draft_revision
     WHERE p.id = ?
     FOR UPDATE OF p`,
    [pageId],
  );
  const row = rows[0];
  if (!row) throw new NotFoundError(pageMessages.pageNotFound);
  const page = row as unknown as Pick<PageRow, (typeof CONTENT_COLUMNS)[number] | 'id' | (typeof REVISION_STATE_COLUMNS)[number]>;
  const stale = ifRevision !== undefined && ifRevision !== page.revision;
  if (stale && !merge) throw new RevisionConflictError(revisionMessages.conflict, await currentContent(tx, pageId));
  const draft =
    row.draft_number === null
      ? null
      : contentOf(Object.fromEntries(CONTENT_COLUMNS.map((column) => [column, row[`draft_${column}`]])) as Pick<PageRow, (typeof CONTENT_COLUMNS)[number]>);
  const draftMeta: DraftMeta | null =
    row.draft_number === null
      ? null
      : {
          author_id: row.draft_author_id as number | null,
          recorded_at: row.draft_recorded_at as Date,
          autosaved_at: row.draft_autosaved_at as Date | null,
          preview_until: row.draft_preview_until as Date | null,
        };
  return { page, draft, draftMeta, stale };
}

/**
 * The content a stale write was based on, for the merge (one statement): revision
 * `number` for a draft save (what GET …/draft showed at that revision); for a live
 * write, the live content then, the newest revision that was live up to that number.
 * A base pruned since (or never there) cannot be merged: the write is refused as stale.
 */
export async function readMergeBase(tx: AppContext, pageId: number, number: number, live: boolean): Promise<MergeBase> {
  const base = await findMergeBase(tx, pageId, number, live);
  if (!base) throw new RevisionConflictError(revisionMessages.conflict, await currentContent(tx, pageId));
  return base;
}

/** As readMergeBase; null when the base is gone. */
export async function findMergeBase(tx: AppContext, pageId: number, number: number, live: boolean): Promise<MergeBase | null> {
  const query = tx.db(REVISIONS_TABLE).where({ page_id: pageId });
  if (live) query.where('number', '<=', number).andWhere({ published: true }).orderBy('number', 'desc');
  else query.where({ number });
  // Who wrote since, read in the same statement: the editor names them («Fusionné avec…»).
  const others = tx.db.raw(
    `(SELECT array_agg(DISTINCT u.name ORDER BY u.name) FROM ${REVISIONS_TABLE} o JOIN app_auth_users u ON u.id = o.author_id
      WHERE o.page_id = ? AND o.number > ?) AS others`,
    [pageId, number],
  );
  const row: (Pick<PageRow, (typeof CONTENT_COLUMNS)[number]> & { others: string[] | null }) | undefined = await query.first([...CONTENT_COLUMNS, others]);
  return row ? { content: contentOf(row), others: row.others ?? [] } : null;
}

export interface MergeBase {
  /** The content the stale write was based on. */
  content: PageContent;
  /** The names of the accounts that wrote revisions since (an account gone is not named). */
  others: string[];
}
