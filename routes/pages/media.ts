// Media routes for image blocks (pages.manage), on the /app/api router. Uploads follow
// the shared rules of lib/uploads.ts: 2 MB at most (413), PNG/JPEG/WebP by magic bytes (415).
import type { Router } from 'express';
import { editMedia, listMediaItems, removeMedia, showMedia, uploadMedia } from '../../controllers/pages/media.js';
import { idParams, mediaListQuery, mediaPatchBody } from '../../controllers/pages/schemas.js';
import { parseImageUpload } from '../../lib/uploads.js';
import { requirePermission } from '../../middleware/require-auth.js';
import { validate } from '../../middleware/validate.js';
import { acceptMultipart } from '../api/index.js';

export const MEDIA_PATH = '/admin/media';

export function registerMediaApi(api: Router): void {
  const manage = requirePermission('pages.manage');
  acceptMultipart('POST', MEDIA_PATH);
  api.get(MEDIA_PATH, manage, validate({ query: mediaListQuery }), listMediaItems);
  api.post(MEDIA_PATH, manage, parseImageUpload('file'), uploadMedia);
  api.get(`${MEDIA_PATH}/:id`, manage, validate({ params: idParams }), showMedia);
  api.put(`${MEDIA_PATH}/:id`, manage, validate({ params: idParams, body: mediaPatchBody }), editMedia);
  api.delete(`${MEDIA_PATH}/:id`, manage, validate({ params: idParams }), removeMedia);
}
