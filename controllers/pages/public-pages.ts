// Public JSON routes of the pages module (SPEC B3): never a private page, no permission,
// no session lookup (their rows are declared 'public'). Answers come from the public
// read cache when it holds them (no statement), with a strong ETag (304 when current).
// A page for members is the exception: never cached, it is answered for its reader
// alone (member-pages.ts), who is read from the session only then.
import type { Call } from '../../routes/define.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { withoutMediaData } from '../../models/pages/media.js';
import { pageMessages } from '../../models/pages/messages.js';
import { isResolvablePath, listPublicChildrenAt, publicPlaceOf, resolvePublicPage } from '../../models/pages/public.js';
import { MAX_ID } from '../../lib/schema-primitives.js';
import type { AppContext } from '../../lib/context.js';
import { buildAnswer, type CachedAnswer } from '../../lib/public-cache.js';
import { pageCacheTags } from '../../models/pages/cache-tags.js';
import { cachedAnswer, NotShared, publicCacheControl, sendAnswer } from './public-answers.js';
import { answerMemberList, answerMemberPageJson } from './member-pages.js';
import { apiRedirectAnswer } from './public-redirects.js';

const JSON_TYPE = 'application/json; charset=utf-8';

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
  const { ctx } = call;
  const segments = segmentsOf(call.query.path, 'path');
  const path = segments.join('/');
  const key = `api:${path}`;
  const answer = await cachedAnswer(ctx, key, isResolvablePath(segments) ? path : undefined, async (reads) => {
    const resolved = await resolvePublicPage(reads, segments);
    if (!resolved) return apiRedirectAnswer(reads, segments);
    if (resolved.restricted) return new NotShared(resolved);
    const { page, ancestorIds } = resolved;
    return buildAnswer(JSON.stringify({ ...page, blocks: withoutMediaData(page.blocks) }), {
      contentType: JSON_TYPE,
      lastModified: new Date(page.updated_at),
      tags: pageCacheTags({ page: page.id, pages: [...ancestorIds, page.id], lists: [], media: [] }),
    });
  });
  if (!answer) throw new NotFoundError(pageMessages.pageNotFound);
  if (answer instanceof NotShared) return answerMemberPageJson(call, answer.value);
  sendAnswer(ctx, call.res, key, answer, publicCacheControl(ctx));
}

// GET /app/api/pages?parent=<id | a/b | root>&limit=&offset= — public children with `url`.
export async function listPublicPages(call: Call<NoParams, { parent?: string; limit: number; offset: number }>): Promise<void> {
  const { ctx } = call;
  const { parent, limit, offset } = call.query;
  let answer: CachedAnswer | null | NotShared<{ id: number; path: string }>;
  let key: string;
  if (parent === undefined || parent === 'root' || parent === '') {
    key = `list:root:${limit}:${offset}`;
    answer = await cachedAnswer(ctx, key, undefined, (reads) => childListAnswer(reads, null, '', [], limit, offset));
  } else if (/^\d+$/.test(parent)) {
    const parentId = Number(parent);
    if (parentId > MAX_ID) throw new NotFoundError(pageMessages.pageNotFound);
    key = `list:id:${parentId}:${limit}:${offset}`;
    answer = await cachedAnswer(ctx, key, undefined, async (reads) => {
      const place = await publicPlaceOf(reads, parentId);
      if (place?.restricted) return new NotShared({ id: parentId, path: place.path });
      return place && childListAnswer(reads, parentId, place.path, place.ids, limit, offset);
    });
  } else {
    const segments = segmentsOf(parent, 'parent');
    if (!isResolvablePath(segments)) {
      throw new ValidationError(pageMessages.parentInvalid, { details: [{ field: 'parent', message: pageMessages.parentInvalid }] });
    }
    const path = segments.join('/');
    key = `list:path:${path}:${limit}:${offset}`;
    answer = await cachedAnswer(ctx, key, path, async (reads) => {
      const resolved = await resolvePublicPage(reads, segments);
      if (!resolved) return null;
      if (resolved.restricted) return new NotShared({ id: resolved.page.id, path: '/' + path });
      return childListAnswer(reads, resolved.page.id, '/' + path, [...resolved.ancestorIds, resolved.page.id], limit, offset);
    });
  }
  if (!answer) throw new NotFoundError(pageMessages.pageNotFound);
  if (answer instanceof NotShared) {
    const parentPage = answer.value;
    return answerMemberList(call, parentPage.id, async (reader) => {
      const { items, total } = await listPublicChildrenAt(ctx, parentPage.id, parentPage.path, { limit, offset, reader });
      return { items: items.map(({ seo: _seo, ...item }) => item), total, limit, offset };
    });
  }
  sendAnswer(ctx, call.res, key, answer, publicCacheControl(ctx));
}

/** The JSON list of a parent's public children; it depends on the parent's chain (its URLs) and its children. */
async function childListAnswer(
  ctx: AppContext,
  parentId: number | null,
  basePath: string,
  chain: number[],
  limit: number,
  offset: number,
): Promise<CachedAnswer> {
  const { items, total } = await listPublicChildrenAt(ctx, parentId, basePath, { limit, offset });
  const body = JSON.stringify({ items: items.map(({ seo: _seo, ...item }) => item), total, limit, offset });
  return buildAnswer(body, { contentType: JSON_TYPE, tags: pageCacheTags({ pages: chain, lists: [parentId ?? 0], media: [] }) });
}
