// The media library screens (pages.manage): upload, list with thumbnails, alt text and
// caption, delete (refused while a page uses the image). Same model and storage as
// the JSON media routes (models/pages/media.ts, lib/uploads.ts).
import type { Request, Response } from 'express';
import Joi from 'joi';
import { logger } from '../../lib/logger.js';
import { removeStoredFile, storeImage } from '../../lib/uploads.js';
import { validateValue } from '../../middleware/validate.js';
import { deleteMedia, getMedia, insertMedia, listMedia, updateMedia } from '../../models/pages/media.js';
import { redirectWithFlash, renderAdmin, type FormLocals } from '../admin/shell.js';

export const mediaScreenMessages = {
  uploaded: 'L’image est ajoutée à la médiathèque.',
  saved: 'Le texte de l’image est enregistré.',
  deleted: 'L’image est supprimée.',
} as const;

export const MEDIA_PAGE_SIZE = 48;

const mediaForm = Joi.object({
  alt: Joi.string().trim().max(500).allow('').default('').label('Texte alternatif'),
  caption: Joi.string().trim().max(1000).allow('').default('').label('Légende'),
});

// GET /admin/media?page=
export async function showMediaLibrary(req: Request, res: Response, locals: FormLocals = {}, status = 200): Promise<void> {
  const page = Math.max(1, Math.min(100_000, Number.parseInt(String(req.query.page ?? '1'), 10) || 1));
  const { items, total } = await listMedia({ limit: MEDIA_PAGE_SIZE, offset: (page - 1) * MEDIA_PAGE_SIZE });
  const pages = Math.max(1, Math.ceil(total / MEDIA_PAGE_SIZE));
  await renderAdmin(req, res, 'admin/pages/media-list.njk', { pageTitle: 'Médiathèque', items, total, page, pages, ...locals }, status);
}

// POST /admin/media (multipart: file, alt, caption)
export async function uploadMediaForm(req: Request, res: Response): Promise<void> {
  const fields = validateValue<{ alt: string; caption: string }>(mediaForm, req.body ?? {}, { allowUnknown: true });
  const image = req.image!;
  const stored = await storeImage(image, 'media');
  let media;
  try {
    media = await insertMedia(
      { filename: stored.path, original_name: image.originalName.slice(0, 255), mime_type: stored.contentType, size: stored.size, ...fields },
      req.user?.id ?? null,
    );
  } catch (error) {
    await removeStoredFile(stored.path);
    throw error;
  }
  redirectWithFlash(req, res, `/admin/media/${media.id}`, mediaScreenMessages.uploaded);
}

// GET /admin/media/:id
export async function showMediaItem(req: Request, res: Response, locals: FormLocals = {}, status = 200): Promise<void> {
  const media = await getMedia(Number(req.params.id));
  await renderAdmin(
    req,
    res,
    'admin/pages/media-edit.njk',
    { pageTitle: `Image ${media.original_name}`, media, values: { alt: media.alt, caption: media.caption }, ...locals },
    status,
  );
}

// POST /admin/media/:id {alt, caption}
export async function saveMediaItem(req: Request, res: Response): Promise<void> {
  const fields = validateValue<{ alt: string; caption: string }>(mediaForm, req.body, { allowUnknown: true });
  const media = await updateMedia(Number(req.params.id), fields);
  redirectWithFlash(req, res, `/admin/media/${media.id}`, mediaScreenMessages.saved);
}

// POST /admin/media/:id/delete (confirmed in a <details>) — 409 while a page uses it.
export async function deleteMediaItem(req: Request, res: Response): Promise<void> {
  const media = await deleteMedia(Number(req.params.id));
  await removeStoredFile(media.filename).catch((error) => logger.warn({ err: error, mediaId: media.id }, 'media file could not be removed'));
  redirectWithFlash(req, res, '/admin/media', mediaScreenMessages.deleted);
}
