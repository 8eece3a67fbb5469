// The page tree's data layer for the admin side: every SQL statement that writes pages.
// Rules (SPEC B) hold here, inside transactions: slugs derived, validated and made
// unique among siblings, reserved root slugs refused, parent checked, cycles refused,
// created_at only in the past, template registered, blocks and SEO checked by the
// catalog's schemas, images pointing at existing media, subtree deletes atomic.
import { inTransaction, type AppContext } from '../../lib/context.js';
import { recordAudit, sourceOfActor, type Actor, type AuditTarget } from '../audit.js';
import { ConflictError, NotFoundError, RevisionConflictError, ValidationError } from '../../lib/errors.js';
import type { PageRow } from '../../lib/tables.js';
import type { Block } from './blocks.js';
import { createPageCatalog, type PageCatalog } from './catalog.js';
import { lockMediaRows } from './media.js';
import { pageMessages, revisionMessages } from './messages.js';
import {
  checkBlocks,
  checkRootSlug,
  checkSeo,
  checkSlug,
  checkTemplate,
  cleanTitle,
  fieldError,
  imageMediaIds,
  parseCreatedAt,
  TITLE_MAX_LENGTH,
} from './rules.js';
import { withFreeSlug } from './page-slugs.js';
import { contentPatch, mergedContent, type MergeOutcome } from './merged-writes.js';
import {
  CONTENT_COLUMNS,
  contentOf,
  currentContent,
  insertRevision,
  readMergeBase,
  REVISIONS_TABLE,
  type MergeBase,
  type PageContent,
} from './revision-store.js';
import { sectionPagesCte } from './grants.js';
import { PAGES_TABLE } from './schema.js';
import { slugify } from './slugs.js';
import { bumpTreeVersion } from './tree-state.js';
import type { PageAccess } from './access.js';

export type { Block } from './blocks.js';
export { deletePage } from './page-delete.js';

export type Visibility = 'public' | 'private';

export interface Page {
  id: number;
  parent_id: number | null;
  title: string;
  slug: string;
  template: string;
  blocks: Block[];
  seo: Record<string, unknown>;
  visibility: Visibility;
  /** Who may read it beside its visibility (models/pages/access.ts): live, not part of drafts. */
  access: PageAccess;
  access_roles: number[];
  author_id: number | null;
  updated_by: number | null;
  created_at: Date;
  updated_at: Date;
  /** The newest revision number (what `if_revision` is compared with). */
  revision: number;
  published_revision: number | null;
  draft_revision: number | null;
  scheduled_at: Date | null;
  scheduled_by: number | null;
}

/** A row of the admin list: no blocks, no seo (fetch the page by id for its content). */
export type PageSummary = Omit<Page, 'blocks' | 'seo'>;

export interface PageInput {
  title: string;
  slug?: string;
  parent_id?: number | null;
  template?: string;
  blocks?: Block[];
  seo?: Record<string, unknown>;
  visibility?: Visibility;
}

export interface CreatePageOptions {
  /**
   * false: the page is never published until its draft is (state «Jamais publiée»). Its
   * content is its draft (revision 1); its live row is private, so no public read, list,
   * navigation, sitemap or cache ever shows it, by the rule that hides private pages.
   */
  publish?: boolean;
}

export interface PagePatch extends Partial<PageInput> {
  created_at?: string;
}

const PAGE_COLUMNS: Array<keyof PageRow> = [
  'id',
  'parent_id',
  'title',
  'slug',
  'template',
  'blocks',
  'seo',
  'visibility',
  'access',
  'access_roles',
  'author_id',
  'updated_by',
  'created_at',
  'updated_at',
  'revision',
  'published_revision',
  'draft_revision',
  'scheduled_at',
  'scheduled_by',
];
const SUMMARY_COLUMNS = PAGE_COLUMNS.filter((column) => column !== 'blocks' && column !== 'seo');
const COPY_SUFFIX = ' (copie)';
// Serialises moves so that two concurrent moves cannot build a cycle between them.
const TREE_MOVE_LOCK = 'app_pages_tree_move';

/**
 * Takes the moves' lock for the transaction. A write that may move a page and locks
 * its row first (a draft's publication) takes it before the row, in the order
 * updatePage takes them, so the two never wait for each other.
 */
export async function lockTreeMoves(tx: AppContext): Promise<void> {
  await tx.db.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [TREE_MOVE_LOCK]);
}

export async function assertParentExists(tx: AppContext, parentId: number): Promise<void> {
  // FOR KEY SHARE keeps the parent from being deleted before this transaction commits.
  const parent = await tx.db(PAGES_TABLE).where({ id: parentId }).forKeyShare().first('id');
  if (!parent) throw fieldError('parent_id', pageMessages.parentNotFound);
}

/** Every image block names an existing media, locked until commit so it cannot be deleted meanwhile. */
export async function assertMediaExist(tx: AppContext, blocks: Block[]): Promise<void> {
  const images = imageMediaIds(blocks);
  if (!images.length) return;
  const existing = new Set(
    await lockMediaRows(
      tx,
      images.map(([, mediaId]) => mediaId),
    ),
  );
  const details = images
    .filter(([, mediaId]) => !existing.has(mediaId))
    .map(([index]) => ({ field: `blocks.${index}.media_id`, message: pageMessages.mediaMissing }));
  if (details.length) throw new ValidationError(pageMessages.mediaMissing, { details });
}

async function findPageById(ctx: AppContext, id: number): Promise<Page | undefined> {
  return ctx.db(PAGES_TABLE).where({ id }).first(PAGE_COLUMNS);
}

export async function getPage(ctx: AppContext, id: number): Promise<Page> {
  const page = await findPageById(ctx, id);
  if (!page) throw new NotFoundError(pageMessages.pageNotFound);
  return page;
}

export interface ListPagesOptions {
  visibility?: Visibility;
  /** A parent id, or null for root pages; undefined lists the whole tree. */
  parentId?: number | null;
  limit?: number;
  offset?: number;
  /** Only the pages in this user's sections (its page permissions come only from grants). */
  withinSectionsOf?: number;
}

/** The admin list: light rows ordered by title, with the total for the filters. */
export async function listPages(ctx: AppContext, options: ListPagesOptions = {}): Promise<{ items: PageSummary[]; total: number }> {
  const { visibility, parentId, limit = 100, offset = 0, withinSectionsOf } = options;
  const filtered = () => {
    const query = ctx.db(PAGES_TABLE);
    if (withinSectionsOf !== undefined)
      query.whereRaw(`id IN (WITH RECURSIVE ${sectionPagesCte()} SELECT id FROM section_pages)`, [withinSectionsOf, withinSectionsOf]);
    if (visibility) query.where({ visibility });
    if (parentId !== undefined) query.whereRaw('COALESCE(parent_id, 0) = ?', [parentId ?? 0]);
    return query;
  };
  const rows = await filtered()
    .select<Array<PageSummary & { total: number }>>([...SUMMARY_COLUMNS, ctx.db.raw('count(*) OVER () AS total')])
    .orderBy([{ column: 'title' }, { column: 'id' }])
    .limit(limit)
    .offset(offset);
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && offset > 0) total = Number((await filtered().count({ n: '*' }).first())?.n ?? 0);
  return { items: rows.map(({ total: _total, ...row }) => row), total };
}

type NewPageRow = Pick<Page, 'title' | 'slug' | 'parent_id' | 'template' | 'blocks' | 'seo' | 'visibility'> & Partial<Pick<Page, 'access' | 'access_roles'>>;

export function pageTarget(page: { id: number; title: string }): AuditTarget {
  return { type: 'page', id: page.id, label: page.title };
}

/**
 * Inserts a page created now by `actorId` (create and duplicate), and its revision 1:
 * live at once, or (`publish: false`) as a never-published page whose revision 1 is
 * its draft and whose live row stays private until the draft is published.
 */
async function insertPageRow(ctx: AppContext, row: NewPageRow, actorId: number | null, publish = true): Promise<Page> {
  const now = ctx.clock.now();
  const [page] = await ctx
    .db(PAGES_TABLE)
    .insert({
      ...row,
      visibility: publish ? row.visibility : 'private',
      blocks: JSON.stringify(row.blocks),
      seo: JSON.stringify(row.seo),
      author_id: actorId,
      updated_by: actorId,
      created_at: now,
      updated_at: now,
      revision: 1,
      published_revision: publish ? 1 : null,
      draft_revision: publish ? null : 1,
    })
    .returning(PAGE_COLUMNS);
  await insertRevision(ctx, page.id, 1, { ...page, visibility: row.visibility }, actorId);
  return page;
}

export async function createPage(
  ctx: AppContext,
  input: PageInput,
  actor: Actor | null = null,
  catalog: PageCatalog = createPageCatalog(),
  options: CreatePageOptions = {},
): Promise<Page> {
  const publish = options.publish ?? true;
  const title = cleanTitle(input.title);
  const template = checkTemplate(catalog, input.template ?? 'default');
  const blocks = checkBlocks(catalog, input.blocks ?? []);
  const seo = checkSeo(input.seo ?? {});
  const parentId = input.parent_id ?? null;
  const base = input.slug !== undefined ? checkSlug(input.slug) : slugify(title);
  checkRootSlug(base, parentId);
  return inTransaction(ctx, async (tx) => {
    if (parentId !== null) await assertParentExists(tx, parentId);
    await assertMediaExist(tx, blocks);
    const page = await withFreeSlug(tx, base, parentId, null, (savepoint, slug) =>
      insertPageRow(
        savepoint,
        { title, slug, parent_id: parentId, template, blocks, seo, visibility: input.visibility ?? 'public' },
        actor?.id ?? null,
        publish,
      ),
    );
    await bumpTreeVersion(tx);
    await recordAudit(tx, {
      ...sourceOfActor(actor),
      action: 'page.created',
      target: pageTarget(page),
      details: { parent_id: page.parent_id, visibility: input.visibility ?? 'public', ...(publish ? {} : { published: false }) },
    });
    return page;
  });
}

/** True when `ancestorId` is `id` itself or one of its ancestors (walks up the tree once). */
export async function isSelfOrAncestor(ctx: AppContext, ancestorId: number, id: number): Promise<boolean> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ found: boolean }> }>(
    `WITH RECURSIVE up AS (
       SELECT id, parent_id, 1 AS depth FROM ${PAGES_TABLE} WHERE id = ?
       UNION ALL
       SELECT p.id, p.parent_id, up.depth + 1 FROM ${PAGES_TABLE} p JOIN up ON p.id = up.parent_id WHERE up.depth < 10000
     ) SELECT EXISTS (SELECT 1 FROM up WHERE id = ?) AS found`,
    [id, ancestorId],
  );
  return Boolean(rows[0]?.found);
}

/**
 * updated_at is the version the block editor's forms carry: every write moves it
 * forward, by a millisecond at least, even when two writes share a clock reading (or
 * a test stopped the clock), so a form rendered before a write is stale after it.
 * `previous` is read from the locked row.
 */
function nextVersion(ctx: AppContext, previous: Date): Date {
  return new Date(Math.max(ctx.clock.nowMs(), new Date(previous).getTime() + 1));
}

export interface UpdatePageOptions {
  /** The revision the write was based on; a newer one answers 409 (undefined: not checked). */
  ifRevision?: number;
  /** A stale `ifRevision` is merged three-way with the live page instead (409 only on a clash). */
  merge?: boolean;
  /** The audit action in place of the one the change implies (a draft's publication). */
  action?: string;
  /** The write publishes the pending draft: the draft and its schedule are cleared with it. */
  clearDraft?: boolean;
}

interface LiveChanges {
  /** The columns to write. */
  changes: Record<string, unknown>;
  /** The checked blocks, when written. */
  blocks?: Block[];
}

/** The patch's fields checked and ready to write (blocks given their ids). */
function liveChanges(ctx: AppContext, patch: PagePatch, catalog: PageCatalog): LiveChanges {
  const changes: Record<string, unknown> = {};
  let blocks: Block[] | undefined;
  if (patch.title !== undefined) changes.title = cleanTitle(patch.title);
  if (patch.template !== undefined) changes.template = checkTemplate(catalog, patch.template);
  if (patch.blocks !== undefined) changes.blocks = JSON.stringify((blocks = checkBlocks(catalog, patch.blocks)));
  if (patch.seo !== undefined) changes.seo = JSON.stringify(checkSeo(patch.seo));
  if (patch.visibility !== undefined) changes.visibility = patch.visibility;
  if (patch.created_at !== undefined) changes.created_at = parseCreatedAt(patch.created_at, ctx.clock.now());
  if (patch.slug !== undefined) checkSlug(patch.slug);
  return { changes, blocks };
}

/** The patch's fields as content (a merge's `mine` is the base with these on top). */
function patchContent(live: LiveChanges, patch: PagePatch): Partial<PageContent> {
  const content: Partial<PageContent> = {};
  if (live.changes.title !== undefined) content.title = live.changes.title as string;
  if (patch.slug !== undefined) content.slug = patch.slug;
  if (patch.parent_id !== undefined) content.parent_id = patch.parent_id;
  if (live.changes.template !== undefined) content.template = live.changes.template as string;
  if (live.blocks) content.blocks = live.blocks;
  if (patch.seo !== undefined) content.seo = JSON.parse(live.changes.seo as string) as Record<string, unknown>;
  if (patch.visibility !== undefined) content.visibility = patch.visibility;
  if (live.changes.created_at !== undefined) content.created_at = live.changes.created_at as Date;
  return content;
}

/** PUT: partial; only the fields present are written, live at once, as a new revision. */
export async function updatePage(
  ctx: AppContext,
  id: number,
  given: PagePatch,
  actor: Actor | null = null,
  catalog: PageCatalog = createPageCatalog(),
  options: UpdatePageOptions = {},
): Promise<Page & MergeOutcome> {
  let patch = given;
  let { changes, blocks } = liveChanges(ctx, patch, catalog);

  return inTransaction(ctx, async (tx) => {
    // A merged write moves the page only when the given patch does (a move on the other
    // side is already live), so the moves' lock is taken before the row's as always.
    if (given.parent_id !== undefined) await tx.db.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [TREE_MOVE_LOCK]);
    const columns: Array<keyof PageRow> = ['id', 'parent_id', 'slug', 'updated_at', 'visibility', 'revision', ...(options.merge ? CONTENT_COLUMNS : [])];
    const current: PageRow | undefined = await tx
      .db(PAGES_TABLE)
      .where({ id })
      .forUpdate()
      .first([...new Set(columns)]);
    if (!current) throw new NotFoundError(pageMessages.pageNotFound);
    const stale = options.ifRevision !== undefined && options.ifRevision !== current.revision;
    if (stale && !options.merge) throw new RevisionConflictError(revisionMessages.conflict, await currentContent(tx, id));
    let mergeBase: MergeBase | undefined;
    if (stale) {
      const live = contentOf(current);
      mergeBase = await readMergeBase(tx, id, options.ifRevision!, true);
      patch = contentPatch(live, await mergedContent(tx, id, mergeBase.content, patchContent({ changes, blocks }, given), live));
      ({ changes, blocks } = liveChanges(tx, patch, catalog));
    }
    if (blocks) await assertMediaExist(tx, blocks);
    const parentId = patch.parent_id !== undefined ? patch.parent_id : current.parent_id;
    if (parentId !== null && parentId !== current.parent_id) {
      if (parentId === id) throw fieldError('parent_id', pageMessages.cycle);
      await assertParentExists(tx, parentId);
      if (await isSelfOrAncestor(tx, id, parentId)) throw fieldError('parent_id', pageMessages.cycle);
    }
    const base = patch.slug ?? current.slug;
    const slugChanges = base !== current.slug || parentId !== current.parent_id;
    if (slugChanges) checkRootSlug(base, parentId);
    const write = async (executor: AppContext, slug?: string) => {
      const [page] = await executor
        .db(PAGES_TABLE)
        .where({ id })
        .update({
          ...changes,
          ...(slug === undefined ? {} : { slug, parent_id: parentId }),
          updated_by: actor?.id ?? null,
          updated_at: nextVersion(executor, current.updated_at),
          // Both from the row before the update: the new revision is the live one.
          revision: executor.db.raw('revision + 1'),
          published_revision: executor.db.raw('revision + 1'),
          ...(options.clearDraft ? { draft_revision: null, scheduled_at: null, scheduled_by: null } : {}),
        })
        .returning(PAGE_COLUMNS);
      return page as Page;
    };
    const page = slugChanges ? await withFreeSlug(tx, base, parentId, id, (savepoint, slug) => write(savepoint, slug)) : await write(tx);
    await insertRevision(tx, id, page.revision, page, actor?.id ?? null);
    await bumpTreeVersion(tx);
    const event = pageUpdateEvent(current, page, patch);
    if (stale) event.details.merged_from = options.ifRevision;
    await recordAudit(tx, { ...sourceOfActor(actor), ...event, ...(options.action ? { action: options.action } : {}) });
    return options.merge ? { ...page, merged: stale, ...(mergeBase ? { merged_with: mergeBase.others } : {}) } : page;
  });
}

/**
 * The block editor's write: `edit` receives the page's blocks as they are now and
 * returns the new list. The version (updated_at) the form was rendered from is
 * compared on the locked row, in the transaction that writes, so an index never lands
 * on a block that moved meanwhile.
 */
export async function editPageBlocks(
  ctx: AppContext,
  id: number,
  version: string,
  edit: (blocks: Block[]) => Block[],
  actor: Actor | null = null,
  catalog: PageCatalog = createPageCatalog(),
): Promise<Page> {
  return inTransaction(ctx, async (tx) => {
    const current = await tx.db(PAGES_TABLE).where({ id }).forUpdate().first(['id', 'blocks', 'updated_at']);
    if (!current) throw new NotFoundError(pageMessages.pageNotFound);
    if (new Date(version).getTime() !== new Date(current.updated_at).getTime()) {
      throw new ConflictError(pageMessages.stalePage, { code: 'stale_page' });
    }
    const blocks = edit(Array.isArray(current.blocks) ? [...current.blocks] : []);
    return updatePage(tx, id, { blocks }, actor, catalog);
  });
}

/**
 * A copy titled «… (copie)», same parent, template, blocks, SEO, visibility and access, created
 * now. The copy of a never-published page is never published either, made from its draft;
 * nor is the copy made by someone who may not publish (`publish: false`), from the live page.
 */
export async function duplicatePage(ctx: AppContext, id: number, actor: Actor | null = null, options: { publish?: boolean } = {}): Promise<Page> {
  return inTransaction(ctx, async (tx) => {
    const live = await getPage(tx, id);
    const publish = live.published_revision !== null && options.publish !== false;
    const draft =
      live.published_revision !== null || live.draft_revision === null
        ? undefined
        : await tx
            .db(REVISIONS_TABLE)
            .where({ page_id: id, number: live.draft_revision })
            .first([...CONTENT_COLUMNS]);
    const source = draft ? { ...live, ...contentOf(draft) } : live;
    // Keeps the media the copy shows from being deleted before it commits.
    await lockMediaRows(
      tx,
      imageMediaIds(source.blocks ?? []).map(([, mediaId]) => mediaId),
    );
    const title = (source.title.slice(0, TITLE_MAX_LENGTH - COPY_SUFFIX.length) + COPY_SUFFIX).trim();
    const { parent_id, template, blocks, seo, visibility } = source;
    // The copy keeps who may read it: a page for members is never copied out for everyone.
    const { access, access_roles } = live;
    const copy = await withFreeSlug(tx, source.slug, source.parent_id, null, (savepoint, slug) =>
      insertPageRow(savepoint, { title, slug, parent_id, template, blocks, seo, visibility, access, access_roles }, actor?.id ?? null, publish),
    );
    await bumpTreeVersion(tx);
    await recordAudit(tx, {
      ...sourceOfActor(actor),
      action: 'page.created',
      target: pageTarget(copy),
      details: { copy_of: id, parent_id: copy.parent_id, visibility, ...(publish ? {} : { published: false }) },
    });
    return copy;
  });
}

/**
 * One event per write, named by what matters most in it: a move (new parent), then a
 * publication change (visibility), else an update; `fields` lists every field written.
 */
function pageUpdateEvent(
  before: { parent_id: number | null; visibility: string },
  page: Page,
  patch: PagePatch,
): { action: string; target: AuditTarget; details: Record<string, unknown> } {
  const fields = Object.keys(patch).filter((key) => patch[key as keyof PagePatch] !== undefined);
  const target = pageTarget(page);
  if (page.parent_id !== before.parent_id)
    return { action: 'page.moved', target, details: { fields, from_parent_id: before.parent_id, to_parent_id: page.parent_id } };
  if (page.visibility !== before.visibility) {
    return { action: page.visibility === 'public' ? 'page.published' : 'page.unpublished', target, details: { fields, visibility: page.visibility } };
  }
  return { action: 'page.updated', target, details: { fields } };
}
