// The page tree's data layer for the admin side: every SQL statement that writes pages.
// Rules (SPEC B, issue item 2) live here, inside transactions: slugs derived, validated
// and made unique among siblings, reserved root slugs refused, parent checked, cycles
// refused, created_at only in the past, template registered, subtree deletes atomic.
import type { Knex } from 'knex';
import { now } from '../../lib/clock.js';
import { db, type Executor } from '../../lib/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { pageMessages } from './messages.js';
import { PAGES_TABLE, SIBLING_SLUG_INDEX } from './schema.js';
import { isReservedRootSlug, isValidSlug, slugCandidate, slugify, SLUG_MAX_LENGTH } from './slugs.js';
import { hasPageTemplate } from './templates.js';

export type Visibility = 'public' | 'private';

export interface Block {
  type: string;
  [key: string]: unknown;
}

export interface Page {
  id: number;
  parent_id: number | null;
  title: string;
  slug: string;
  template: string;
  blocks: Block[];
  seo: Record<string, unknown>;
  visibility: Visibility;
  author_id: number | null;
  updated_by: number | null;
  created_at: Date;
  updated_at: Date;
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

export interface PagePatch extends Partial<PageInput> {
  created_at?: string;
}

export const PAGE_COLUMNS = ['id', 'parent_id', 'title', 'slug', 'template', 'blocks', 'seo', 'visibility', 'author_id', 'updated_by', 'created_at', 'updated_at'];
export const SUMMARY_COLUMNS = PAGE_COLUMNS.filter((column) => column !== 'blocks' && column !== 'seo');
export const TITLE_MAX_LENGTH = 300;
const COPY_SUFFIX = ' (copie)';
const SLUG_ATTEMPTS = 40;
// Serialises moves so that two concurrent moves cannot build a cycle between them.
const TREE_MOVE_LOCK = 'app_pages_tree_move';

function field(name: string, message: string): ValidationError {
  return new ValidationError(message, { details: [{ field: name, message }] });
}

function cleanTitle(title: unknown): string {
  const trimmed = typeof title === 'string' ? title.trim() : '';
  if (!trimmed) throw field('title', pageMessages.titleRequired);
  return trimmed.slice(0, TITLE_MAX_LENGTH);
}

function checkSlug(slug: string): string {
  if (!isValidSlug(slug)) throw field('slug', pageMessages.slugInvalid);
  return slug;
}

function checkTemplate(template: string): string {
  if (!hasPageTemplate(template)) throw field('template', pageMessages.templateUnknown(template));
  return template;
}

function checkRootSlug(slug: string, parentId: number | null): void {
  if (parentId === null && isReservedRootSlug(slug)) throw field('slug', pageMessages.slugReserved(slug));
}

/** created_at is settable on update only: an ISO date, in the past. */
export function parseCreatedAt(value: unknown): Date {
  const iso = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
  const date = typeof value === 'string' && iso.test(value.trim()) ? new Date(value.trim()) : new Date(NaN);
  if (Number.isNaN(date.getTime())) throw field('created_at', pageMessages.createdAtInvalid);
  if (date.getTime() > now().getTime()) throw field('created_at', pageMessages.createdAtFuture);
  return date;
}

function isSlugConflict(error: unknown): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError?.code === '23505' && pgError.constraint === SIBLING_SLUG_INDEX;
}

function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === '23503';
}

/** The first of `base`, `base-2`, `base-3`… not used by a sibling (other than the page itself). */
async function freeSlug(trx: Executor, base: string, parentId: number | null, exceptId: number | null): Promise<string> {
  // Every candidate starts with the first characters of the base (suffixes may shorten it).
  const prefix = base.slice(0, SLUG_MAX_LENGTH - 8);
  const query = trx(PAGES_TABLE)
    .whereRaw('COALESCE(parent_id, 0) = ?', [parentId ?? 0])
    .andWhere('slug', 'like', `${prefix}%`);
  if (exceptId !== null) query.andWhereNot('id', exceptId);
  const taken = new Set<string>(await query.pluck('slug'));
  for (let n = 1; ; n++) {
    const candidate = slugCandidate(base, n);
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * Runs `write` with a free slug. The unique index on (parent, slug) is the guarantee:
 * if a concurrent transaction took the slug first, the savepoint is rolled back and
 * the next free slug is tried.
 */
async function withFreeSlug<T>(
  trx: Knex.Transaction,
  base: string,
  parentId: number | null,
  exceptId: number | null,
  write: (slug: string, savepoint: Knex.Transaction) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
    const slug = await freeSlug(trx, base, parentId, exceptId);
    try {
      return await trx.transaction((savepoint) => write(slug, savepoint));
    } catch (error) {
      if (!isSlugConflict(error)) throw error;
    }
  }
  throw new ConflictError(pageMessages.slugExhausted);
}

async function assertParentExists(trx: Executor, parentId: number): Promise<void> {
  // FOR KEY SHARE keeps the parent from being deleted before this transaction commits.
  const parent = await trx(PAGES_TABLE).where({ id: parentId }).forKeyShare().first('id');
  if (!parent) throw field('parent_id', pageMessages.parentNotFound);
}

export async function findPageById(id: number, trx: Executor = db()): Promise<Page | undefined> {
  return trx(PAGES_TABLE).where({ id }).first(PAGE_COLUMNS);
}

export async function getPage(id: number, trx: Executor = db()): Promise<Page> {
  const page = await findPageById(id, trx);
  if (!page) throw new NotFoundError(pageMessages.pageNotFound);
  return page;
}

export interface ListPagesOptions {
  visibility?: Visibility;
  /** A parent id, or null for root pages; undefined lists the whole tree. */
  parentId?: number | null;
  limit?: number;
  offset?: number;
}

/** The admin list: light rows ordered by title, with the total for the filters. */
export async function listPages(options: ListPagesOptions = {}, trx: Executor = db()): Promise<{ items: PageSummary[]; total: number }> {
  const { visibility, parentId, limit = 100, offset = 0 } = options;
  const filtered = () => {
    const query = trx(PAGES_TABLE);
    if (visibility) query.where({ visibility });
    if (parentId !== undefined) query.whereRaw('COALESCE(parent_id, 0) = ?', [parentId ?? 0]);
    return query;
  };
  const rows = await filtered()
    .select([...SUMMARY_COLUMNS, trx.raw('count(*) OVER () AS total')])
    .orderBy([{ column: 'title' }, { column: 'id' }])
    .limit(limit)
    .offset(offset);
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && offset > 0) total = Number((await filtered().count({ n: '*' }).first())?.n ?? 0);
  return { items: rows.map(({ total: _total, ...row }) => row as PageSummary), total };
}

type NewPageRow = Pick<Page, 'title' | 'slug' | 'parent_id' | 'template' | 'blocks' | 'seo' | 'visibility'>;

/** Inserts a page created now by `actorId` (create and duplicate). */
async function insertPageRow(executor: Executor, row: NewPageRow, actorId: number | null): Promise<Page> {
  const [page] = await executor(PAGES_TABLE)
    .insert({
      ...row,
      blocks: JSON.stringify(row.blocks),
      seo: JSON.stringify(row.seo),
      author_id: actorId,
      updated_by: actorId,
      created_at: now(),
      updated_at: now(),
    })
    .returning(PAGE_COLUMNS);
  return page as Page;
}

export async function createPage(input: PageInput, actorId: number | null = null, trx: Executor = db()): Promise<Page> {
  const title = cleanTitle(input.title);
  const template = checkTemplate(input.template ?? 'default');
  const parentId = input.parent_id ?? null;
  const base = input.slug !== undefined ? checkSlug(input.slug) : slugify(title);
  checkRootSlug(base, parentId);
  return trx.transaction(async (tx) => {
    if (parentId !== null) await assertParentExists(tx, parentId);
    return withFreeSlug(tx, base, parentId, null, (slug, savepoint) =>
      insertPageRow(
        savepoint,
        {
          title,
          slug,
          parent_id: parentId,
          template,
          blocks: input.blocks ?? [],
          seo: input.seo ?? {},
          visibility: input.visibility ?? 'public',
        },
        actorId,
      ),
    );
  });
}

/** True when `ancestorId` is `id` itself or one of its ancestors (walks up the tree once). */
async function isSelfOrAncestor(trx: Executor, ancestorId: number, id: number): Promise<boolean> {
  const { rows } = await trx.raw(
    `WITH RECURSIVE up AS (
       SELECT id, parent_id, 1 AS depth FROM ${PAGES_TABLE} WHERE id = ?
       UNION ALL
       SELECT p.id, p.parent_id, up.depth + 1 FROM ${PAGES_TABLE} p JOIN up ON p.id = up.parent_id WHERE up.depth < 10000
     ) SELECT EXISTS (SELECT 1 FROM up WHERE id = ?) AS found`,
    [id, ancestorId],
  );
  return Boolean(rows[0]?.found);
}

/** PUT: partial; only the fields present are written. */
export async function updatePage(id: number, patch: PagePatch, actorId: number | null = null, trx: Executor = db()): Promise<Page> {
  const changes: Record<string, unknown> = {};
  if (patch.title !== undefined) changes.title = cleanTitle(patch.title);
  if (patch.template !== undefined) changes.template = checkTemplate(patch.template);
  if (patch.blocks !== undefined) changes.blocks = JSON.stringify(patch.blocks);
  if (patch.seo !== undefined) changes.seo = JSON.stringify(patch.seo);
  if (patch.visibility !== undefined) changes.visibility = patch.visibility;
  if (patch.created_at !== undefined) changes.created_at = parseCreatedAt(patch.created_at);
  if (patch.slug !== undefined) checkSlug(patch.slug);

  return trx.transaction(async (tx) => {
    const moving = patch.parent_id !== undefined;
    if (moving) await tx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [TREE_MOVE_LOCK]);
    const current = await tx(PAGES_TABLE).where({ id }).forUpdate().first(['id', 'parent_id', 'slug']);
    if (!current) throw new NotFoundError(pageMessages.pageNotFound);
    const parentId = moving ? (patch.parent_id ?? null) : current.parent_id;
    if (moving && parentId !== null && parentId !== current.parent_id) {
      if (parentId === id) throw field('parent_id', pageMessages.cycle);
      await assertParentExists(tx, parentId);
      if (await isSelfOrAncestor(tx, id, parentId)) throw field('parent_id', pageMessages.cycle);
    }
    const base = patch.slug ?? current.slug;
    const slugChanges = base !== current.slug || parentId !== current.parent_id;
    if (slugChanges) checkRootSlug(base, parentId);
    const write = async (executor: Executor, slug?: string) => {
      const [page] = await executor(PAGES_TABLE)
        .where({ id })
        .update({ ...changes, ...(slug === undefined ? {} : { slug, parent_id: parentId }), updated_by: actorId, updated_at: now() })
        .returning(PAGE_COLUMNS);
      return page as Page;
    };
    if (!slugChanges) return write(tx);
    return withFreeSlug(tx, base, parentId, id, (slug, savepoint) => write(savepoint, slug));
  });
}

/** A copy titled «… (copie)», same parent, template, blocks, SEO and visibility, created now. */
export async function duplicatePage(id: number, actorId: number | null = null, trx: Executor = db()): Promise<Page> {
  return trx.transaction(async (tx) => {
    const source = await getPage(id, tx);
    const title = (source.title.slice(0, TITLE_MAX_LENGTH - COPY_SUFFIX.length) + COPY_SUFFIX).trim();
    return withFreeSlug(tx, source.slug, source.parent_id, null, (slug, savepoint) =>
      insertPageRow(
        savepoint,
        {
          title,
          slug,
          parent_id: source.parent_id,
          template: source.template,
          blocks: source.blocks,
          seo: source.seo,
          visibility: source.visibility,
        },
        actorId,
      ),
    );
  });
}

/**
 * Deletes a page. With children it answers 409 unless `cascade`, which removes the
 * whole subtree in one statement of one transaction. Returns the number of pages removed.
 */
export async function deletePage(id: number, options: { cascade?: boolean } = {}, trx: Executor = db()): Promise<number> {
  return trx.transaction(async (tx): Promise<number> => {
    const page = await tx(PAGES_TABLE).where({ id }).forUpdate().first('id');
    if (!page) throw new NotFoundError(pageMessages.pageNotFound);
    try {
      if (!options.cascade) {
        const child = await tx(PAGES_TABLE).where({ parent_id: id }).first('id');
        if (child) throw new ConflictError(pageMessages.hasChildren, { code: 'page_has_children' });
        return await tx(PAGES_TABLE).where({ id }).delete();
      }
      const result = await tx.raw(
        `DELETE FROM ${PAGES_TABLE} WHERE id IN (
           WITH RECURSIVE subtree AS (
             SELECT id FROM ${PAGES_TABLE} WHERE id = ?
             UNION ALL
             SELECT p.id FROM ${PAGES_TABLE} p JOIN subtree s ON COALESCE(p.parent_id, 0) = s.id
           ) SELECT id FROM subtree)`,
        [id],
      );
      return result.rowCount as number;
    } catch (error) {
      // A child inserted concurrently after the check still cannot be orphaned.
      if (isForeignKeyViolation(error)) throw new ConflictError(pageMessages.hasChildren, { code: 'page_has_children' });
      throw error;
    }
  });
}
