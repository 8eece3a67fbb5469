// Media library of the pages module (images for image blocks), under /app/api/admin/media.
// Adding and removing go through services/pages-media.ts, as the screens do.
import type { Call } from '../../routes/define.js';
import { getMedia, listMedia, updateMedia } from '../../models/pages/media.js';
import { addMedia, removeMedia } from '../../services/pages-media.js';
import { actorOf } from './admin-call.js';
import type { MediaEditBody, MediaTextsBody } from './schemas.js';

type Id = { id: number };

// POST /app/api/admin/media (multipart: file, alt?, caption?)
export async function uploadMedia(call: Call<Record<string, never>, Record<string, never>, MediaTextsBody>): Promise<void> {
  const media = await addMedia(call.ctx, actorOf(call), call.req.image!, call.body);
  call.res.status(201).json(media);
}

// GET /app/api/admin/media?limit=&offset=
export async function listMediaItems(call: Call<Record<string, never>, { limit: number; offset: number }>): Promise<void> {
  const { limit, offset } = call.query;
  const { items, total } = await listMedia(call.ctx, { limit, offset });
  call.res.json({ items, total, limit, offset });
}

// GET /app/api/admin/media/:id
export async function showMedia(call: Call<Id>): Promise<void> {
  call.res.json(await getMedia(call.ctx, call.params.id));
}

// PUT /app/api/admin/media/:id {alt?, caption?, focal_point?: {x, y}}
export async function editMedia(call: Call<Id, Record<string, never>, MediaEditBody>): Promise<void> {
  call.res.json(await updateMedia(call.ctx, call.params.id, call.body));
}

// DELETE /app/api/admin/media/:id — refused (409) while a page uses it.
export async function deleteMediaItem(call: Call<Id>): Promise<void> {
  await removeMedia(call.ctx, call.params.id, actorOf(call));
  call.res.status(204).end();
}
