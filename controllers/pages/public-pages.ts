// Public JSON routes of the pages module (SPEC B3): never a private page, no permission,
// no session lookup (their rows are declared 'public').
import type { Call } from '../../routes/define.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { withoutMediaData } from '../../models/pages/media.js';
import { pageMessages } from '../../models/pages/messages.js';
import { isResolvablePath, listPublicChildrenAt, publicPathOf, resolvePublicPage } from '../../models/pages/public.js';
import { MAX_ID } from '../../lib/schema-primitives.js';

type NoParams = Record<string, never>;

/** `a/b/c` (a leading or trailing slash tolerated) → segments; an empty inner segment is a 400. */
function segmentsOf(path: string, field: string): string[] {
  const segments = path
    .trim()
    .replace(/^\/+|\/+$/g, '')
    .split('/');
  if (segments.some((segment) => segment === '')) {
    throw new ValidationError(pageMessages.pathInvalid, { details: [{ field, message: pageMessages.pathInvalid }] });
  }
  return segments;
}

// GET /app/api/pages/by-path?path=a/b/c — the full row with its blocks, no media data.
export async function showPublicPageByPath(call: Call<NoParams, { path: string }>): Promise<void> {
  const resolved = await resolvePublicPage(call.ctx, segmentsOf(call.query.path, 'path'));
  if (!resolved) throw new NotFoundError(pageMessages.pageNotFound);
  call.res.json({ ...resolved.page, blocks: withoutMediaData(resolved.page.blocks) });
}

// GET /app/api/pages?parent=<id | a/b | root>&limit=&offset= — public children with `url`.
export async function listPublicPages(call: Call<NoParams, { parent?: string; limit: number; offset: number }>): Promise<void> {
  const { ctx } = call;
  const { parent, limit, offset } = call.query;
  let parentId: number | null = null;
  let basePath = '';
  if (parent !== undefined && parent !== 'root' && parent !== '') {
    if (/^\d+$/.test(parent)) {
      parentId = Number(parent);
      const path = parentId <= MAX_ID ? await publicPathOf(ctx, parentId) : null;
      if (path === null) throw new NotFoundError(pageMessages.pageNotFound);
      basePath = path;
    } else {
      const segments = segmentsOf(parent, 'parent');
      if (!isResolvablePath(segments)) {
        throw new ValidationError(pageMessages.parentInvalid, { details: [{ field: 'parent', message: pageMessages.parentInvalid }] });
      }
      const resolved = await resolvePublicPage(ctx, segments);
      if (!resolved) throw new NotFoundError(pageMessages.pageNotFound);
      parentId = resolved.page.id;
      basePath = '/' + segments.join('/');
    }
  }
  const { items, total } = await listPublicChildrenAt(ctx, parentId, basePath, { limit, offset });
  call.res.json({ items: items.map(({ seo: _seo, ...item }) => item), total, limit, offset });
}
