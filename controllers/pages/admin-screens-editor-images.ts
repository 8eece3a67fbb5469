// The editor's image blocks (issue 23, «images in place»). Without JavaScript a block's
// file comes with the form's save (multipart, lib/form-images.ts): a refused file is a
// message on its block with everything else kept, an accepted one becomes a media of
// the library (the library's own use case, addMedia) before the draft is saved. With
// JavaScript the file is uploaded at once through the media API (public/js/page-editor-images.js)
// and the form only carries the media's id. The view shows each block's chosen picture.
import type { Request } from 'express';
import type { AppContext } from '../../lib/context.js';
import type { ErrorDetail } from '../../lib/errors.js';
import type { Actor } from '../../models/audit.js';
import { attachMedia } from '../../models/pages/media.js';
import { addMedia } from '../../services/pages-media.js';
import type { EditorDocument, ParsedDocument } from './admin-screens-document.js';
import { documentMessages } from './messages.js';

/** The name of a block's file field. */
export const FILE_FIELD = /^b\.([a-z0-9]{1,16})\.file$/;

/** The keys of the blocks whose file was sent with the form (accepted or not). */
export function uploadedKeys(req: Request): Set<string> {
  const keys = new Set<string>();
  for (const field of req.formImages?.keys() ?? []) {
    const match = FILE_FIELD.exec(field);
    if (match) keys.add(match[1]);
  }
  return keys;
}

/** A message on each block whose file was refused (too large, not an image). */
export function refusedFiles(req: Request): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const [field, file] of req.formImages ?? []) {
    if ('refused' in file) details.push({ field, message: documentMessages.fileRefused(file.refused) });
  }
  return details;
}

/**
 * Each accepted file becomes a media (with the block's text alternative) and its block
 * names it. The submitted body names it too, so a refusal further on (a conflict, a
 * rule of the model) shows the form with the picture chosen instead of asking for the
 * file again.
 */
export async function storeFormImages(
  ctx: AppContext,
  actor: Actor | null,
  req: Request,
  parsed: ParsedDocument,
  body: Record<string, unknown>,
): Promise<void> {
  for (const [field, file] of req.formImages ?? []) {
    const key = FILE_FIELD.exec(field)?.[1];
    const index = key === undefined ? -1 : parsed.keys.indexOf(key);
    const block = parsed.blocks[index];
    if (!('image' in file) || !block || block.type !== 'image') continue;
    const media = await addMedia(ctx, actor, file.image, { alt: typeof block.alt === 'string' ? block.alt : '' });
    block.media_id = media.id;
    body[`b.${key}.media_id`] = String(media.id);
  }
}

/** What the view shows of a chosen picture. */
export interface ChosenMedia {
  url: string;
  name: string;
  alt: string;
}

/**
 * The pictures the document's image blocks name (one statement, none without images),
 * by id. A block stored before it had its own text alternative is given the media's, so
 * the field shows what the site shows and a save keeps it.
 */
export async function editorImages(ctx: AppContext, document: EditorDocument, stored: boolean): Promise<Record<string, ChosenMedia>> {
  const idOf = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  const blocks = document.blocks.filter((item) => item.type === 'image' && /^[1-9][0-9]{0,9}$/.test(idOf(item.values.media_id)));
  if (!blocks.length) return {};
  const found = await attachMedia(
    ctx,
    blocks.map((item) => ({ type: 'image', media_id: Number(item.values.media_id) })),
  );
  const byId: Record<string, ChosenMedia> = {};
  for (const block of found) {
    if (typeof block.url !== 'string') continue;
    const url = block.url;
    byId[String(block.media_id)] = { url, name: url.slice(url.lastIndexOf('/') + 1), alt: typeof block.alt === 'string' ? block.alt : '' };
  }
  if (stored) {
    for (const item of blocks) {
      if (item.values.alt === undefined) item.values.alt = byId[idOf(item.values.media_id)]?.alt ?? '';
    }
  }
  return byId;
}
