// Media library of the pages module (images for image blocks), under /app/api/admin/media.
import type { Request, Response } from 'express';
import { logger } from '../../lib/logger.js';
import { removeStoredFile, storeImage } from '../../lib/uploads.js';
import { validateValue } from '../../middleware/validate.js';
import { deleteMedia, getMedia, insertMedia, listMedia, updateMedia } from '../../models/pages/media.js';
import { mediaUploadBody } from './schemas.js';

// POST /app/api/admin/media (multipart: file, alt?, caption?)
export async function uploadMedia(req: Request, res: Response): Promise<void> {
  // Multipart text fields arrive after parsing; they are validated like a JSON body.
  const fields = validateValue<{ alt?: string; caption?: string }>(mediaUploadBody, req.body ?? {});
  const image = req.image!;
  const stored = await storeImage(image, 'media');
  try {
    const media = await insertMedia(
      { filename: stored.path, original_name: image.originalName.slice(0, 255), mime_type: stored.contentType, size: stored.size, ...fields },
      req.user?.id ?? null,
    );
    res.status(201).json(media);
  } catch (error) {
    await removeStoredFile(stored.path);
    throw error;
  }
}

// GET /app/api/admin/media?limit=&offset=
export async function listMediaItems(_req: Request, res: Response): Promise<void> {
  const { limit, offset } = res.locals.query;
  const { items, total } = await listMedia({ limit, offset });
  res.json({ items, total, limit, offset });
}

// GET /app/api/admin/media/:id
export async function showMedia(req: Request, res: Response): Promise<void> {
  res.json(await getMedia(Number(req.params.id)));
}

// PUT /app/api/admin/media/:id {alt?, caption?}
export async function editMedia(req: Request, res: Response): Promise<void> {
  res.json(await updateMedia(Number(req.params.id), req.body));
}

// DELETE /app/api/admin/media/:id — refused (409) while a page uses it.
export async function removeMedia(req: Request, res: Response): Promise<void> {
  const media = await deleteMedia(Number(req.params.id));
  // The row is gone (committed): a file that cannot be removed is only logged.
  await removeStoredFile(media.filename).catch((error) => logger.warn({ err: error, mediaId: media.id }, 'media file could not be removed'));
  res.status(204).end();
}
