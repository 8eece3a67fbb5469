// The media library screens (pages.manage): thumbnails first, upload in a secondary
// panel, alt text and caption, the pages using an image (links to their editor), delete
// (refused while a page uses the image). Adding and removing go
// through services/pages-media.ts, as the JSON media routes do.
import Joi from 'joi';
import { text } from '../../lib/schema-primitives.js';
import { getMedia, listMedia, updateMedia } from '../../models/pages/media.js';
import { mediaUsage } from '../../models/pages/media-usage.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { addMedia, removeMedia } from '../../services/pages-media.js';
import { pathId, redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { actorOf } from './admin-call.js';
import { mediaScreenMessages, pageScreenTitles } from './messages.js';

const MEDIA_PAGE_SIZE = 48;

export interface MediaForm {
  alt: string;
  caption: string;
  /** The focal point's fields (absent from the upload form: the centre then). */
  focal_x?: number;
  focal_y?: number;
}

const focalField = (label: string) => Joi.number().integer().min(0).max(100).empty('').label(label);

export const mediaForm = Joi.object<MediaForm>({
  alt: text().trim().max(500).allow('').default('').label('Texte alternatif'),
  caption: text().trim().max(1000).allow('').default('').label('Légende'),
  focal_x: focalField('Point focal, horizontal'),
  focal_y: focalField('Point focal, vertical'),
});

export const mediaLibraryQuery = Joi.object<{ page: number }>({ page: Joi.number().integer().min(1).max(100_000).default(1) });

// GET /admin/media?page=
export async function showMediaLibrary(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  // A re-render (failed upload) receives the raw query: it shows the first page.
  const requested: unknown = (call.query as { page?: unknown }).page;
  const page = typeof requested === 'number' ? requested : 1;
  const { items, total } = await listMedia(call.ctx, { limit: MEDIA_PAGE_SIZE, offset: (page - 1) * MEDIA_PAGE_SIZE });
  const pages = Math.max(1, Math.ceil(total / MEDIA_PAGE_SIZE));
  const maxMegabytes = Math.round((call.ctx.config.mediaMaxBytes / (1024 * 1024)) * 10) / 10;
  await renderAdmin(call, 'admin/pages/media-list.njk', { pageTitle: pageScreenTitles.media, items, total, page, pages, maxMegabytes, ...locals }, status);
}

// POST /admin/media (multipart: file, alt, caption)
export async function uploadMediaForm(call: Call<Record<string, never>, Record<string, never>, MediaForm>): Promise<void> {
  const { alt, caption } = call.body;
  const media = await addMedia(call.ctx, actorOf(call), call.req.image!, { alt, caption });
  redirectWithFlash(call.req, call.res, `/admin/media/${media.id}`, mediaScreenMessages.uploaded);
}

// GET /admin/media/:id
export async function showMediaItem(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const id = pathId(call);
  const [media, usage] = await Promise.all([getMedia(call.ctx, id), mediaUsage(call.ctx, id)]);
  await renderAdmin(
    call,
    'admin/pages/media-edit.njk',
    {
      pageTitle: pageScreenTitles.image(media.original_name),
      media,
      usage,
      values: { alt: media.alt, caption: media.caption, focal_x: media.focal_point.x, focal_y: media.focal_point.y },
      ...locals,
    },
    status,
  );
}

// POST /admin/media/:id {alt, caption, focal_x?, focal_y?}
export async function saveMediaItem(call: Call<{ id: number }, Record<string, never>, MediaForm>): Promise<void> {
  const { focal_x: x, focal_y: y, ...texts } = call.body;
  // Both fields or neither: one alone keeps the other where it was.
  const before = (x === undefined) !== (y === undefined) ? (await getMedia(call.ctx, call.params.id)).focal_point : undefined;
  const focal_point = x === undefined && y === undefined ? undefined : { x: x ?? before!.x, y: y ?? before!.y };
  const media = await updateMedia(call.ctx, call.params.id, { ...texts, ...(focal_point ? { focal_point } : {}) });
  redirectWithFlash(call.req, call.res, `/admin/media/${media.id}`, mediaScreenMessages.saved);
}

// POST /admin/media/:id/delete (confirmed in a <details>) — 409 while a page uses it.
export async function deleteMediaItem(call: Call<{ id: number }>): Promise<void> {
  await removeMedia(call.ctx, call.params.id, actorOf(call));
  redirectWithFlash(call.req, call.res, '/admin/media', mediaScreenMessages.deleted);
}
