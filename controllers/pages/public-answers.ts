// How the public reads use the application's read cache (lib/public-cache.ts) and
// answer conditional requests: one lookup (no statement on a hit), one fill that is
// stored only when no change raced it, and the headers every public answer carries.
import type { Response } from 'express';
import { withPublicReads, type AppContext } from '../../lib/context.js';
import type { CachedAnswer } from '../../lib/public-cache.js';

/** `public, max-age=0, must-revalidate, s-maxage=N` (PUBLIC_CACHE_SECONDS). */
export function publicCacheControl(ctx: AppContext): string {
  return `public, max-age=0, must-revalidate, s-maxage=${ctx.config.publicCacheSeconds}`;
}

/**
 * What a fill found that is not for everyone (a page for members): nothing is stored
 * under the key, nor is the path remembered as unknown; the caller answers `value`
 * for its reader alone (controllers/pages/member-pages.ts).
 */
export class NotShared<T> {
  constructor(readonly value: T) {}
}

/**
 * The answer stored under `key`, else `fill()`'s (stored when nothing changed during
 * the fill). `unknownPath` names the path when `fill()` resolves one: a null answer is
 * then remembered as an unknown path until a page is created, moved or renamed.
 * `fill()` runs its statements with the context it is given: on the read replica when
 * it is fresh enough, else on the primary (withPublicReads()).
 */
export async function cachedAnswer(
  ctx: AppContext,
  key: string,
  unknownPath: string | undefined,
  fill: (reads: AppContext) => Promise<CachedAnswer | null>,
): Promise<CachedAnswer | null>;
export async function cachedAnswer<T>(
  ctx: AppContext,
  key: string,
  unknownPath: string | undefined,
  fill: (reads: AppContext) => Promise<CachedAnswer | null | NotShared<T>>,
): Promise<CachedAnswer | null | NotShared<T>>;
export async function cachedAnswer<T>(
  ctx: AppContext,
  key: string,
  unknownPath: string | undefined,
  fill: (reads: AppContext) => Promise<CachedAnswer | null | NotShared<T>>,
): Promise<CachedAnswer | null | NotShared<T>> {
  const cache = ctx.publicCache;
  if (await cache.ready()) {
    const hit = cache.get(key);
    if (hit) return hit;
    if (unknownPath !== undefined && cache.isUnknown(unknownPath)) return null;
  }
  const started = cache.begin();
  const answer = await withPublicReads(ctx, fill);
  if (answer instanceof NotShared) return answer;
  if (answer) cache.store(started, key, answer);
  else if (unknownPath !== undefined) cache.storeUnknown(started, unknownPath);
  return answer;
}

/**
 * Sends the answer stored (or just filled) under `key` with its validators; Express
 * answers 304 when the client's copy is current. A redirect's answer (301, 410) carries
 * no validators; `query` (`?a=b`) is added to a 301's location. What was sent teaches
 * the hit path (lib/public-hits.ts) to send it again for the same URL.
 */
export function sendAnswer(ctx: AppContext, res: Response, key: string, answer: CachedAnswer, cacheControl: string, query = ''): void {
  sendHeadersAndBody(res, answer, cacheControl, query);
  ctx.publicHits?.learn(res.req, res, key, answer);
}

function sendHeadersAndBody(res: Response, answer: CachedAnswer, cacheControl: string, query: string): void {
  // Set again below, in one order whether a fill set them first (the sitemap's) or not.
  res.removeHeader('ETag');
  res.removeHeader('Last-Modified');
  res.set('Cache-Control', cacheControl);
  if (answer.status !== undefined) {
    res.status(answer.status).set('Content-Type', answer.contentType);
    if (answer.location !== undefined) res.set('Location', answer.location + query);
    res.end(answer.body);
    return;
  }
  res.set('ETag', answer.etag);
  if (answer.lastModified) res.set('Last-Modified', answer.lastModified.toUTCString());
  res.set('Content-Type', answer.contentType);
  // res.send keeps the ETag set here and turns the answer into a 304 when req.fresh.
  res.send(answer.body);
}
