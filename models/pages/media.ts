// The media table for image blocks: metadata of uploaded images (the file itself lives
// in the upload storage, served at /uploads/<filename>), their size, focal point and the
// renditions made from them (services/pages-media-renditions.ts), which a new media and
// a moved focal point ask for (models/pages/media-jobs.ts) in the same transaction.
import { inTransaction, type AppContext } from '../../lib/context.js';
import { recordAudit, sourceOfActor, type Actor, type AuditTarget } from '../audit.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { MediaRow, StoredCrops, StoredRendition } from '../../lib/tables.js';
import { UPLOADS_URL_PREFIX } from '../../lib/uploads.js';
import type { Block } from './blocks.js';
import { requestRenditions } from './media-jobs.js';
import { cropNames, pictureOf } from './media-pictures.js';
import { pageMessages } from './messages.js';
import { MEDIA_TABLE, PAGES_TABLE } from './schema.js';

/** A media as the API shows it (DESIGN: the row, its URL, its size, focal point and renditions). */
export interface Media extends Omit<MediaRow, 'focal_x' | 'focal_y' | 'renditions' | 'crops'> {
  url: string;
  focal_point: FocalPoint;
  renditions: Array<{ width: number; height: number; format: StoredRendition['format']; url: string }>;
  /** The crops around the current focal point, once made (null until then, and after the focal point moved). */
  crops: { social: MediaCrop | null; square: MediaCrop | null };
}

interface MediaCrop {
  url: string;
  width: number;
  height: number;
}

interface FocalPoint {
  x: number;
  y: number;
}

export interface MediaInput {
  filename: string;
  original_name: string;
  mime_type: string;
  size: number;
  alt?: string;
  caption?: string;
  width?: number | null;
  height?: number | null;
}

export const MEDIA_COLUMNS: Array<keyof MediaRow> = [
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
  'width',
  'height',
  'focal_x',
  'focal_y',
  'renditions',
  'crops',
];
// What enrichment adds to an image block; only the server ever sets these. `alt` is also
// the block's own text alternative (kept when stored, the media's used when it is empty).
const MEDIA_FIELDS = ['url', 'caption', 'picture'] as const;

function mediaUrl(filename: string): string {
  return UPLOADS_URL_PREFIX + filename;
}

/** A crop made around the row's current focal point, else null (the focal point moved since). */
function currentCrop(row: MediaRow, crop: StoredCrops['social']): MediaCrop | null {
  if (!crop || crop.focal[0] !== row.focal_x || crop.focal[1] !== row.focal_y) return null;
  return { url: mediaUrl(crop.name), width: crop.width, height: crop.height };
}

function withUrl(row: MediaRow): Media {
  const { focal_x, focal_y, renditions, crops, ...rest } = row;
  return {
    ...rest,
    url: mediaUrl(row.filename),
    focal_point: { x: focal_x, y: focal_y },
    renditions: renditions.map(({ width, height, format, name }) => ({ width, height, format, url: mediaUrl(name) })),
    crops: { social: currentCrop(row, crops.social), square: currentCrop(row, crops.square) },
  };
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
    await requestRenditions(tx, row.id);
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

/** What a theme's view shows of a media (services/pages-view-helpers.ts `media` filter). */
export async function getMediaForView(
  ctx: AppContext,
  id: number,
): Promise<Pick<Media, 'url' | 'alt' | 'caption' | 'width' | 'height'> & { picture: ReturnType<typeof pictureOf> }> {
  const row: MediaRow | undefined = await ctx.db(MEDIA_TABLE).where({ id }).first(MEDIA_COLUMNS);
  if (!row) throw new NotFoundError(pageMessages.mediaNotFound);
  return { url: mediaUrl(row.filename), alt: row.alt, caption: row.caption, width: row.width, height: row.height, picture: pictureOf(row) };
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

export interface MediaPatch {
  alt?: string;
  caption?: string;
  focal_point?: FocalPoint;
}

/** Changes a media's texts or focal point; a focal point that moves asks for its crops again (same transaction). */
export async function updateMedia(ctx: AppContext, id: number, patch: MediaPatch): Promise<Media> {
  const { focal_point: focal, ...texts } = patch;
  return inTransaction(ctx, async (tx) => {
    const before = await tx.db(MEDIA_TABLE).where({ id }).forUpdate().first(['focal_x', 'focal_y']);
    if (!before) throw new NotFoundError(pageMessages.mediaNotFound);
    const [row] = await tx
      .db(MEDIA_TABLE)
      .where({ id })
      .update({ ...texts, ...(focal ? { focal_x: focal.x, focal_y: focal.y } : {}), updated_at: tx.clock.now() })
      .returning(MEDIA_COLUMNS);
    if (focal && (focal.x !== before.focal_x || focal.y !== before.focal_y)) await requestRenditions(tx, id);
    return withUrl(row);
  });
}

/** Every stored file of a media: the original, its renditions, its crops (the stale ones too). */
function storedFilesOf(row: MediaRow): string[] {
  return [row.filename, ...row.renditions.map((rendition) => rendition.name), ...cropNames(row.crops)];
}

/**
 * Removes the row of a media no page uses (409 otherwise) and returns it with its stored
 * files, so the caller can remove them once the transaction has committed.
 */
export async function deleteMedia(ctx: AppContext, id: number, actor: Actor | null = null): Promise<Media & { files: string[] }> {
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
    return { ...withUrl(row), files: storedFilesOf(row) };
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
 * Image blocks gain `url`, `alt`, `caption` and `picture` (its sources: media-pictures.ts) from their media (one statement for all
 * of them, none when the page has no image); whatever the stored block held under
 * `url` or `caption` is dropped first, and its own `alt` wins over the media's. An image whose media is gone keeps no URL and is
 * skipped by the renderer.
 */
export async function attachMedia(ctx: AppContext, blocks: unknown): Promise<Block[]> {
  const stored = withoutMediaData(blocks);
  const ids = [...new Set(stored.map(mediaIdOf).filter((id): id is number => id !== undefined))];
  if (!ids.length) return stored;
  const rows: MediaRow[] = await ctx.db(MEDIA_TABLE).whereIn('id', ids).select(MEDIA_COLUMNS);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return stored.map((block) => {
    const media = byId.get(mediaIdOf(block) ?? 0);
    if (!media) return block;
    // A decorative image says nothing (empty alt); else the block's own text wins over the library's.
    const own = typeof block.alt === 'string' ? block.alt.trim() : '';
    const alt = block.decorative === true ? '' : own || media.alt;
    return { ...block, url: mediaUrl(media.filename), alt, caption: media.caption, picture: pictureOf(media) };
  });
}
