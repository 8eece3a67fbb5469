// The media table for image blocks: metadata of uploaded images (the file itself lives
// under the upload directory, served at /uploads/<filename>).
import { inTransaction, type AppContext } from '../../lib/context.js';
import { recordAudit, sourceOfActor, type Actor, type AuditTarget } from '../audit.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { MediaRow } from '../../lib/tables.js';
import { UPLOADS_URL_PREFIX } from '../../lib/uploads.js';
import type { Block } from './blocks.js';
import { pageMessages } from './messages.js';
import { MEDIA_TABLE, PAGES_TABLE } from './schema.js';

export interface Media extends MediaRow {
  url: string;
}

export interface MediaInput {
  filename: string;
  original_name: string;
  mime_type: string;
  size: number;
  alt?: string;
  caption?: string;
}

const MEDIA_COLUMNS: Array<keyof MediaRow> = [
  'id',
  'filename',
  'original_name',
  'mime_type',
  'size',
  'alt',
  'caption',
  'uploaded_by',
  'created_at',
  'updated_at',
];
// What enrichment adds to an image block; only the server ever sets these. `alt` is also
// the block's own text alternative (kept when stored, the media's used when it is empty).
const MEDIA_FIELDS = ['url', 'caption'] as const;

function mediaUrl(filename: string): string {
  return UPLOADS_URL_PREFIX + filename;
}

function withUrl(row: MediaRow): Media {
  return { ...row, url: mediaUrl(row.filename) };
}

function mediaTarget(row: { id: number; original_name: string; filename: string }): AuditTarget {
  return { type: 'media', id: row.id, label: row.original_name || row.filename };
}

/** Records a stored file, and its audit event in the same transaction. */
export async function insertMedia(ctx: AppContext, input: MediaInput, actor: Actor | null): Promise<Media> {
  const now = ctx.clock.now();
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx
      .db(MEDIA_TABLE)
      .insert({ ...input, alt: input.alt ?? '', caption: input.caption ?? '', uploaded_by: actor?.id ?? null, created_at: now, updated_at: now })
      .returning(MEDIA_COLUMNS);
    await recordAudit(tx, { ...sourceOfActor(actor), action: 'media.added', target: mediaTarget(row), details: { mime_type: row.mime_type, size: row.size } });
    return withUrl(row);
  });
}

export async function listMedia(ctx: AppContext, options: { limit?: number; offset?: number } = {}): Promise<{ items: Media[]; total: number }> {
  const { limit = 50, offset = 0 } = options;
  const [rows, counted] = await Promise.all([
    ctx
      .db(MEDIA_TABLE)
      .select(MEDIA_COLUMNS)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit)
      .offset(offset),
    ctx.db(MEDIA_TABLE).count({ n: '*' }),
  ]);
  return { items: rows.map(withUrl), total: Number(counted[0].n) };
}

export async function getMedia(ctx: AppContext, id: number): Promise<Media> {
  const row = await ctx.db(MEDIA_TABLE).where({ id }).first(MEDIA_COLUMNS);
  if (!row) throw new NotFoundError(pageMessages.mediaNotFound);
  return withUrl(row);
}

/**
 * The ids among `ids` that name a media, each row locked (FOR KEY SHARE) until the
 * caller's transaction ends, so a page written in it never points at a media deleted
 * meanwhile (deleteMedia locks the row FOR UPDATE, then counts the pages using it).
 */
export async function lockMediaRows(ctx: AppContext, ids: number[]): Promise<number[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  return ctx.db(MEDIA_TABLE).whereIn('id', unique).forKeyShare().pluck('id');
}

export async function updateMedia(ctx: AppContext, id: number, patch: { alt?: string; caption?: string }): Promise<Media> {
  const [row] = await ctx
    .db(MEDIA_TABLE)
    .where({ id })
    .update({ ...patch, updated_at: ctx.clock.now() })
    .returning(MEDIA_COLUMNS);
  if (!row) throw new NotFoundError(pageMessages.mediaNotFound);
  return withUrl(row);
}

/**
 * Removes the row of a media no page uses (409 otherwise) and returns it, so the caller
 * can remove the file once the transaction has committed.
 */
export async function deleteMedia(ctx: AppContext, id: number, actor: Actor | null = null): Promise<Media> {
  return inTransaction(ctx, async (tx) => {
    const row = await tx.db(MEDIA_TABLE).where({ id }).forUpdate().first(MEDIA_COLUMNS);
    if (!row) throw new NotFoundError(pageMessages.mediaNotFound);
    // Pages showing it, or whose pending draft does (publishing that draft would fail).
    const shown = JSON.stringify([{ type: 'image', media_id: id }]);
    const users = await tx
      .db(`${PAGES_TABLE} as p`)
      .leftJoin('app_page_revisions as r', function () {
        this.on('r.page_id', '=', 'p.id').andOn('r.number', '=', 'p.draft_revision');
      })
      .whereRaw('(p.blocks @> ?::jsonb OR r.blocks @> ?::jsonb)', [shown, shown])
      .count({ n: '*' });
    const count = Number(users[0].n);
    if (count > 0) throw new ConflictError(pageMessages.mediaInUse(count), { code: 'media_in_use' });
    await tx.db(MEDIA_TABLE).where({ id }).delete();
    await recordAudit(tx, { ...sourceOfActor(actor), action: 'media.removed', target: mediaTarget(row) });
    return withUrl(row);
  });
}

function mediaIdOf(block: Block): number | undefined {
  const id = block.media_id;
  return block.type === 'image' && Number.isInteger(id) && (id as number) > 0 ? (id as number) : undefined;
}

/** An image block as stored, without any url or caption a client may have put there. */
function storedImage(block: Block): Block {
  const copy: Block = { ...block };
  for (const field of MEDIA_FIELDS) delete copy[field];
  return copy;
}

/** Blocks without media data (the public `by-path` route: SPEC B3). */
export function withoutMediaData(blocks: unknown): Block[] {
  if (!Array.isArray(blocks)) return [];
  return blocks.map((block: Block) => (block && block.type === 'image' ? storedImage(block) : block));
}

/**
 * Image blocks gain `url`, `alt` and `caption` from their media (one statement for all
 * of them, none when the page has no image); whatever the stored block held under
 * `url` or `caption` is dropped first, and its own `alt` wins over the media's. An image whose media is gone keeps no URL and is
 * skipped by the renderer.
 */
export async function attachMedia(ctx: AppContext, blocks: unknown): Promise<Block[]> {
  const stored = withoutMediaData(blocks);
  const ids = [...new Set(stored.map(mediaIdOf).filter((id): id is number => id !== undefined))];
  if (!ids.length) return stored;
  const rows: Array<Pick<Media, 'id' | 'filename' | 'alt' | 'caption'>> = await ctx
    .db(MEDIA_TABLE)
    .whereIn('id', ids)
    .select(['id', 'filename', 'alt', 'caption']);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return stored.map((block) => {
    const media = byId.get(mediaIdOf(block) ?? 0);
    if (!media) return block;
    // A decorative image says nothing (empty alt); else the block's own text wins over the library's.
    const own = typeof block.alt === 'string' ? block.alt.trim() : '';
    const alt = block.decorative === true ? '' : own || media.alt;
    return { ...block, url: mediaUrl(media.filename), alt, caption: media.caption };
  });
}
