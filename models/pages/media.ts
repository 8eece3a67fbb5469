// The media table for image blocks: metadata of uploaded images (the file itself lives
// under the upload directory, served at /uploads/<filename>).
import { db, type Executor } from '../../lib/db.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { now } from '../../lib/clock.js';
import { UPLOADS_URL_PREFIX } from '../../lib/uploads.js';
import { pageMessages } from './messages.js';
import type { Block } from './pages.js';
import { MEDIA_TABLE, PAGES_TABLE } from './schema.js';

export interface Media {
  id: number;
  filename: string;
  original_name: string;
  mime_type: string;
  size: number;
  alt: string;
  caption: string;
  uploaded_by: number | null;
  created_at: Date;
  updated_at: Date;
  url: string;
}

const MEDIA_COLUMNS = ['id', 'filename', 'original_name', 'mime_type', 'size', 'alt', 'caption', 'uploaded_by', 'created_at', 'updated_at'];

export function mediaUrl(filename: string): string {
  return UPLOADS_URL_PREFIX + filename;
}

function withUrl(row: Omit<Media, 'url'>): Media {
  return { ...row, url: mediaUrl(row.filename) };
}

export async function insertMedia(
  input: { filename: string; original_name: string; mime_type: string; size: number; alt?: string; caption?: string },
  actorId: number | null,
  trx: Executor = db(),
): Promise<Media> {
  const [row] = await trx(MEDIA_TABLE)
    .insert({ ...input, alt: input.alt ?? '', caption: input.caption ?? '', uploaded_by: actorId, created_at: now(), updated_at: now() })
    .returning(MEDIA_COLUMNS);
  return withUrl(row);
}

export async function listMedia(options: { limit?: number; offset?: number } = {}, trx: Executor = db()): Promise<{ items: Media[]; total: number }> {
  const { limit = 50, offset = 0 } = options;
  const [rows, counted] = await Promise.all([
    trx(MEDIA_TABLE).select(MEDIA_COLUMNS).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit).offset(offset),
    trx(MEDIA_TABLE).count({ n: '*' }),
  ]);
  return { items: rows.map(withUrl), total: Number(counted[0].n) };
}

export async function getMedia(id: number, trx: Executor = db()): Promise<Media> {
  const row = await trx(MEDIA_TABLE).where({ id }).first(MEDIA_COLUMNS);
  if (!row) throw new NotFoundError(pageMessages.mediaNotFound);
  return withUrl(row);
}

export async function updateMedia(id: number, patch: { alt?: string; caption?: string }, trx: Executor = db()): Promise<Media> {
  const [row] = await trx(MEDIA_TABLE)
    .where({ id })
    .update({ ...patch, updated_at: now() })
    .returning(MEDIA_COLUMNS);
  if (!row) throw new NotFoundError(pageMessages.mediaNotFound);
  return withUrl(row);
}

/**
 * Removes the row of a media no page uses (409 otherwise) and returns it, so the caller
 * can remove the file once the transaction has committed.
 */
export async function deleteMedia(id: number, trx: Executor = db()): Promise<Media> {
  return trx.transaction(async (tx) => {
    const row = await tx(MEDIA_TABLE).where({ id }).forUpdate().first(MEDIA_COLUMNS);
    if (!row) throw new NotFoundError(pageMessages.mediaNotFound);
    const users = await tx(PAGES_TABLE)
      .whereRaw('blocks @> ?::jsonb', [JSON.stringify([{ type: 'image', media_id: id }])])
      .count({ n: '*' });
    const count = Number(users[0].n);
    if (count > 0) throw new ConflictError(pageMessages.mediaInUse(count), { code: 'media_in_use' });
    await tx(MEDIA_TABLE).where({ id }).delete();
    return withUrl(row);
  });
}

function mediaIdOf(block: Block): number | undefined {
  const id = block.media_id;
  return block.type === 'image' && Number.isInteger(id) && (id as number) > 0 ? (id as number) : undefined;
}

/**
 * Image blocks gain `url`, `alt` and `caption` from their media (one statement for all
 * of them, none when the page has no image). An image whose media is gone keeps no URL
 * and is skipped by the templates.
 */
export async function attachMedia(blocks: Block[], trx: Executor = db()): Promise<Block[]> {
  if (!Array.isArray(blocks)) return [];
  const ids = [...new Set(blocks.map(mediaIdOf).filter((id): id is number => id !== undefined))];
  if (!ids.length) return blocks;
  const rows: Array<Omit<Media, 'url'>> = await trx(MEDIA_TABLE).whereIn('id', ids).select(['id', 'filename', 'alt', 'caption']);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return blocks.map((block) => {
    const media = byId.get(mediaIdOf(block) ?? 0);
    if (!media) return block;
    return { ...block, url: mediaUrl(media.filename), alt: media.alt, caption: media.caption };
  });
}
