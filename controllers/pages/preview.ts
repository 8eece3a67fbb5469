// Preview links (models/pages/preview-links.ts): the API that makes one, and the site
// page that shows it. A preview is rendered like any page (same templates, same
// navigation) from the primary (an editor who just saved a draft must see it, whatever
// the replica's lag), never stored in the public read cache, never indexed, never kept
// by a browser or a proxy; its URL is a bearer token, so it is never sent as a referrer.
import type { Response } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../lib/context.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { createPreviewLink, previewGeneration, previewPageOf, readPreview, revokePreviewLinks, verifyPreview } from '../../models/pages/preview-links.js';
import type { Call } from '../../routes/define.js';
import { actorOf } from './admin-call.js';
import { renderPage } from '../../services/pages-rendering.js';
import { previewRefusals, previewTitles } from './messages.js';

/** `{revision?}`: a revision of the page; without it the draft, else the live content. */
export const previewLinkBody = Joi.object<{ revision?: number }>({ revision: Joi.number().integer().min(0).max(2_147_483_647) }).unknown(false);
export const previewTokenParams = Joi.object<{ token: string }>({ token: Joi.string().max(200).required() });

// POST /app/api/admin/pages/:id/preview-link → 201 {url, expires_at, revision}
export async function createPreviewLinkAnswer(call: Call<{ id: number }, Record<string, never>, { revision?: number }>): Promise<void> {
  const link = await createPreviewLink(call.ctx, call.params.id, { revision: call.body.revision, actor: actorOf(call) });
  call.res.status(201).json({ url: link.url, expires_at: link.expires_at, revision: link.revision });
}

// DELETE /app/api/admin/pages/:id/preview-links → 204: every link of the page stops working.
export async function revokePreviewLinksAnswer(call: Call<{ id: number }>): Promise<void> {
  await revokePreviewLinks(call.ctx, call.params.id, { actor: actorOf(call) });
  call.res.status(204).end();
}

function privateAnswer(res: Response): void {
  res.set('Cache-Control', 'no-store');
  res.set('X-Robots-Tag', 'noindex');
  res.set('Referrer-Policy', 'no-referrer');
}

function refuse(ctx: AppContext, res: Response, reason: keyof typeof previewRefusals): void {
  const refusal = previewRefusals[reason];
  res.status(refusal.status).render('site/preview-refused.njk', { refusal, reason, meta: { title: refusal.title, noindex: true } });
}

// GET /_apercu/:token — the page as the link's revision holds it, or a 403 / 410 page.
export async function showPreview(catalog: PageCatalog, call: Call<{ token: string }>): Promise<void> {
  const { ctx, res } = call;
  privateAnswer(res);
  // The page's preview generation is signed: read first (a page gone reads as 0, so its
  // links still verify, and say «gone» below).
  const pageId = previewPageOf(call.params.token);
  const generation = pageId === null ? 0 : ((await previewGeneration(ctx, pageId)) ?? 0);
  const check = verifyPreview(ctx.config.sessionSecret, call.params.token, ctx.clock.now(), generation);
  if (!check.ok) return refuse(ctx, res, check.reason);
  const content = await readPreview(ctx, check.claim);
  if (!content) return refuse(ctx, res, 'gone');
  const url = content.segments.length === 1 && content.segments[0] === 'accueil' ? '/' : '/' + content.segments.join('/');
  const preview = {
    revision: check.claim.revision,
    state: content.state,
    title: previewTitles[content.state](check.claim.revision),
    editUrl: `/admin/pages/${content.page.id}`,
    expiresAt: check.claim.expiresAt,
    url,
  };
  const rendered = await renderPage(ctx, catalog, content, url, { preview });
  res.set('Content-Type', rendered.contentType);
  res.send(rendered.html);
}
