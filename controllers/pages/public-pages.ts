// Public JSON routes of the pages module (SPEC B3): never a private page, no permission.
import type { Request, Response } from 'express';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { pageMessages } from '../../models/pages/messages.js';
import { isResolvablePath, listPublicChildrenAt, publicPathOf, resolvePublicPage } from '../../models/pages/public.js';

/** `a/b/c` (a leading or trailing slash tolerated) → segments; an empty inner segment is a 400. */
function segmentsOf(path: string, field: string): string[] {
  const segments = path.trim().replace(/^\/+|\/+$/g, '').split('/');
  if (segments.some((segment) => segment === '')) {
    throw new ValidationError(pageMessages.pathInvalid, { details: [{ field, message: pageMessages.pathInvalid }] });
  }
  return segments;
}

// GET /app/api/pages/by-path?path=a/b/c — the full row with its blocks, no media data.
export async function showPublicPageByPath(_req: Request, res: Response): Promise<void> {
  const segments = segmentsOf(res.locals.query.path, 'path');
  const resolved = await resolvePublicPage(segments);
  if (!resolved) throw new NotFoundError(pageMessages.pageNotFound);
  res.json(resolved.page);
}

// GET /app/api/pages?parent=<id | a/b | root>&limit=&offset= — public children with `url`.
export async function listPublicPages(_req: Request, res: Response): Promise<void> {
  const { parent, limit, offset } = res.locals.query;
  let parentId: number | null = null;
  let basePath = '';
  if (parent !== undefined && parent !== 'root' && parent !== '') {
    if (/^\d+$/.test(parent)) {
      parentId = Number(parent);
      const path = parentId <= 2_147_483_647 ? await publicPathOf(parentId) : null;
      if (path === null) throw new NotFoundError(pageMessages.pageNotFound);
      basePath = path;
    } else {
      const segments = segmentsOf(parent, 'parent');
      if (!isResolvablePath(segments)) {
        throw new ValidationError(pageMessages.parentInvalid, { details: [{ field: 'parent', message: pageMessages.parentInvalid }] });
      }
      const resolved = await resolvePublicPage(segments);
      if (!resolved) throw new NotFoundError(pageMessages.pageNotFound);
      parentId = resolved.page.id;
      basePath = '/' + segments.join('/');
    }
  }
  const { items, total } = await listPublicChildrenAt(parentId, basePath, { limit, offset });
  res.json({ items: items.map(({ seo: _seo, ...item }) => item), total, limit, offset });
}
