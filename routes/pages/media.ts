// Media rows for image blocks (pages.manage) on /app/api. Uploads follow the shared
// rules of lib/uploads.ts with the media library's limits: MEDIA_MAX_MB and 50
// megapixels at most (400 naming the limit), PNG/JPEG/WebP by magic bytes (415).
import { idParams } from '../../lib/schema-primitives.js';
import * as media from '../../controllers/pages/media.js';
import { mediaEditBody, mediaListQuery, mediaTextsBody } from '../../controllers/pages/schemas.js';
import { route, type AnyRoute } from '../define.js';

const MANAGE = { permission: 'pages.manage' } as const;

const MEDIA_PATH = '/admin/media';

export function mediaApiRoutes(): AnyRoute[] {
  return [
    route({ method: 'get', path: MEDIA_PATH, access: MANAGE, query: mediaListQuery, handler: media.listMediaItems }),
    route({ method: 'post', path: MEDIA_PATH, access: MANAGE, upload: { field: 'file', limit: 'media' }, body: mediaTextsBody, handler: media.uploadMedia }),
    route({ method: 'get', path: `${MEDIA_PATH}/:id`, access: MANAGE, params: idParams, handler: media.showMedia }),
    route({ method: 'put', path: `${MEDIA_PATH}/:id`, access: MANAGE, params: idParams, body: mediaEditBody, handler: media.editMedia }),
    route({ method: 'delete', path: `${MEDIA_PATH}/:id`, access: MANAGE, params: idParams, handler: media.deleteMediaItem }),
  ];
}
