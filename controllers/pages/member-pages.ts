// Pages for members (issue 26, item 6) on the public surfaces: what the site and the
// public JSON answer once a fill found a restricted page (a NotShared answer, never
// stored by the public cache). Only then is the session read (sessionUserOf): an
// anonymous visitor is sent to the login page and back (`?next=`), or gets 401 in JSON;
// a signed-in reader the rules refuse gets 403; a reader let in gets the page, rendered
// for them alone, with `Cache-Control: private, no-store` so no proxy keeps it.
import type { Response } from 'express';
import { ForbiddenError, UnauthenticatedError } from '../../lib/errors.js';
import { heldSiteViews } from '../../lib/themes.js';
import { sessionUserOf } from '../../middleware/session-on-demand.js';
import { readerMayRead, readerOf, type PageReader } from '../../models/pages/access.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { attachMedia, withoutMediaData } from '../../models/pages/media.js';
import { accessMessages } from '../../models/pages/messages.js';
import type { ResolvedPage } from '../../models/pages/public.js';
import { heldSiteLook } from '../../models/settings/store.js';
import type { AnyCall } from '../../routes/define.js';
import { renderPage } from '../../services/pages-rendering.js';
import { siteTitles } from './messages.js';

/** What every answer about a page for members carries, the refusals and redirects included. */
const PRIVATE_CACHE_CONTROL = 'private, no-store';

/**
 * The reader of this request when the rules of `pageId` (restricted) let it in; else the
 * refusal: null after the answer was sent (HTML), or a thrown 401/403 (JSON).
 */
async function admittedReader(call: AnyCall, pageId: number, html: boolean): Promise<PageReader | null> {
  const { ctx, req, res } = call;
  res.set('Cache-Control', PRIVATE_CACHE_CONTROL);
  const reader = readerOf(await sessionUserOf(ctx, req, res));
  if (!reader) {
    if (!html) throw new UnauthenticatedError(accessMessages.signInRequired);
    res.redirect(302, `/auth/login?next=${encodeURIComponent(req.originalUrl)}`);
    return null;
  }
  if (await readerMayRead(ctx, pageId, reader)) return reader;
  if (!html) throw new ForbiddenError(accessMessages.forbidden, { code: 'access_forbidden' });
  forbiddenPage(call);
  return null;
}

/** The 403 page, in the active theme's views when this process holds them. */
function forbiddenPage({ ctx, res }: AnyCall): void {
  const locals = { site: heldSiteLook(ctx), meta: { title: siteTitles.membersOnly, noindex: true } };
  heldSiteViews(ctx).render('site/members-only.njk', locals, (error: Error | null, html: string | null) =>
    error ? res.req.next!(error) : void sendPrivate(res.status(403), 'text/html; charset=utf-8', html ?? ''),
  );
}

function sendPrivate(res: Response, contentType: string, body: string): void {
  res.set('Cache-Control', PRIVATE_CACHE_CONTROL).type(contentType).send(body);
}

/** GET / or /* of a page for members: the page for its reader, the login page, or 403. */
export async function answerMemberPage(catalog: PageCatalog, call: AnyCall, resolved: ResolvedPage, url: string): Promise<void> {
  const reader = await admittedReader(call, resolved.page.id, true);
  if (!reader) return;
  const { ctx, res } = call;
  const page = { ...resolved.page, blocks: await attachMedia(ctx, resolved.page.blocks) };
  const rendered = await renderPage(ctx, catalog, { ...resolved, page }, url, { reader });
  sendPrivate(res, rendered.contentType, rendered.html);
}

/** GET /app/api/pages/by-path of a page for members: the row for its reader, else 401 or 403. */
export async function answerMemberPageJson(call: AnyCall, resolved: ResolvedPage): Promise<void> {
  await admittedReader(call, resolved.page.id, false);
  const { page } = resolved;
  call.res.set('Cache-Control', PRIVATE_CACHE_CONTROL).json({ ...page, blocks: withoutMediaData(page.blocks) });
}

/** A child list under a page for members: `list(reader)` once the reader is let in, else 401 or 403. */
export async function answerMemberList(call: AnyCall, parentId: number, list: (reader: PageReader) => Promise<unknown>): Promise<void> {
  const reader = (await admittedReader(call, parentId, false))!;
  call.res.set('Cache-Control', PRIVATE_CACHE_CONTROL).json(await list(reader));
}
