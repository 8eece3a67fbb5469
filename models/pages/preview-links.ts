// Preview links: a link on the public site that shows one revision of a page (the
// pending draft, or the live content of a private page) to whoever holds it, for 24
// hours. Nothing is stored: the link carries the page id, the revision number and the
// expiry, signed by HMAC-SHA256 with the session secret (domain-separated, so no other
// HMAC of that secret — CSRF or anti-bot tokens — can pass for a preview signature),
// and compared in constant time. The signature also covers the page's preview
// generation (app_pages.preview_generation): revoking the page's links moves it on
// (revokePreviewLinks, and a trigger when the page is made private), so every link made
// before fails at once, without touching SESSION_SECRET. Generation 0 signs exactly
// what links signed before generations existed, so those stay valid until revoked.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { inTransaction, type AppContext } from '../../lib/context.js';
import { NotFoundError } from '../../lib/errors.js';
import { recordAudit, sourceOfActor, type Actor } from '../audit.js';
import { attachMedia } from './media.js';
import { pageMessages, revisionMessages } from './messages.js';
import { pageTarget, type Page } from './pages.js';
import type { ResolvedPage } from './public.js';
import { REVISIONS_TABLE } from './revision-store.js';
import { PAGES_TABLE } from './schema.js';

export const PREVIEW_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** The site path of previews: a slug has no `_`, so no page can take it. */
const PREVIEW_PATH_PREFIX = '/_apercu/';
const SIGNATURE_CONTEXT = 'site page preview v1';
const TOKEN_PATTERN = /^(\d{1,10})\.(\d{1,10})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export interface PreviewLink {
  /** Absolute, under BASE_URL: what the API answers. */
  url: string;
  /** The same link as a path of this site: where the editor's form redirects. */
  path: string;
  expires_at: Date;
  revision: number;
}

export interface PreviewClaim {
  pageId: number;
  revision: number;
  expiresAt: Date;
  /** The page's preview generation when the link was made (0 when absent). */
  generation?: number;
}

export type PreviewCheck = { ok: true; claim: PreviewClaim } | { ok: false; reason: 'invalid' | 'expired' | 'revoked' };

// Revoked links are told apart from forged ones by trying the generations before the
// current one; past this many revocations an older link is simply «invalid».
const MAX_GENERATIONS_TRIED = 100;

function signature(secret: string, payload: string, generation: number): string {
  const signed = generation === 0 ? payload : `${payload}\ngeneration ${generation}`;
  return createHmac('sha256', secret).update(`${SIGNATURE_CONTEXT}\n${signed}`).digest('base64url');
}

/** The token of a link (`<page>.<revision>.<expiry in seconds>.<signature>`; the generation is signed, not written). */
export function signPreview(secret: string, claim: PreviewClaim): string {
  const payload = `${claim.pageId}.${claim.revision}.${Math.floor(claim.expiresAt.getTime() / 1000)}`;
  return `${payload}.${signature(secret, payload, claim.generation ?? 0)}`;
}

/** The page a token names, before anything is checked (its generation is read from there); null when malformed. */
export function previewPageOf(token: string): number | null {
  const match = TOKEN_PATTERN.exec(token);
  return match ? Number(match[1]) : null;
}

/**
 * A token's claim when its signature holds for the page's current `generation`
 * (checked first: a forged expiry is «invalid») and it has not expired; «revoked» when
 * it holds for an earlier generation.
 */
export function verifyPreview(secret: string, token: string, now: Date, generation = 0): PreviewCheck {
  const match = TOKEN_PATTERN.exec(token);
  if (!match) return { ok: false, reason: 'invalid' };
  const [, page, revision, expires, given] = match;
  const payload = `${page}.${revision}.${expires}`;
  // Same length by the pattern (43 signs, 256 bits): timingSafeEqual never throws here.
  const signedFor = (g: number) => timingSafeEqual(Buffer.from(given), Buffer.from(signature(secret, payload, g)));
  if (!signedFor(generation)) {
    for (let earlier = generation - 1; earlier >= Math.max(0, generation - MAX_GENERATIONS_TRIED); earlier--) {
      if (signedFor(earlier)) return { ok: false, reason: 'revoked' };
    }
    return { ok: false, reason: 'invalid' };
  }
  const expiresAt = new Date(Number(expires) * 1000);
  if (expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, claim: { pageId: Number(page), revision: Number(revision), expiresAt, generation } };
}

/** The page's preview generation; null when the page does not exist. */
export async function previewGeneration(ctx: AppContext, pageId: number): Promise<number | null> {
  const row = await ctx.db(PAGES_TABLE).where({ id: pageId }).first('preview_generation');
  return row ? row.preview_generation : null;
}

/**
 * Revokes every preview link of a page at once (the editor's «Révoquer les liens
 * d'aperçu», DELETE /app/api/admin/pages/:id/preview-links): its generation moves on,
 * and its revisions are no longer kept for links that no longer work. Audited
 * (`page.preview_links_revoked`). One transaction; a missing page is a NotFoundError.
 */
export async function revokePreviewLinks(ctx: AppContext, pageId: number, options: { actor?: Actor | null } = {}): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const [page] = await tx
      .db(PAGES_TABLE)
      .where({ id: pageId })
      .update({ preview_generation: tx.db.raw('preview_generation + 1') })
      .returning<Array<{ title: string; preview_generation: number }>>(['title', 'preview_generation']);
    if (!page) throw new NotFoundError(pageMessages.pageNotFound);
    const released = await tx.db(REVISIONS_TABLE).where({ page_id: pageId }).whereNotNull('preview_until').update({ preview_until: null });
    await recordAudit(tx, {
      ...sourceOfActor(options.actor ?? null),
      action: 'page.preview_links_revoked',
      target: pageTarget({ id: pageId, title: page.title }),
      details: { generation: page.preview_generation, revisions_released: released },
    });
  });
}

/**
 * A preview link for a page: of `revision` when given (any revision the page has),
 * else of its pending draft, else of its live content (a private page's «Voir sur le
 * site»). Audited (`page.preview_link_created`: who let unpublished content out, until
 * when), and its revision kept until the link expires: three statements; a missing page
 * or revision is a NotFoundError.
 */
export async function createPreviewLink(ctx: AppContext, pageId: number, options: { revision?: number; actor?: Actor | null } = {}): Promise<PreviewLink> {
  const row = await ctx
    .db(`${PAGES_TABLE} as p`)
    .leftJoin(`${REVISIONS_TABLE} as r`, function joinRevision() {
      this.on('r.page_id', '=', 'p.id').andOn(
        'r.number',
        '=',
        ctx.db.raw('COALESCE(?::integer, p.draft_revision, p.published_revision, p.revision)', [options.revision ?? null]),
      );
    })
    .where('p.id', pageId)
    .first<{ title: string; revision: number; number: number | null; preview_generation: number } | undefined>(
      'p.title',
      'p.preview_generation',
      ctx.db.raw('COALESCE(?::integer, p.draft_revision, p.published_revision, p.revision) AS revision', [options.revision ?? null]),
      'r.number',
    );
  if (!row) throw new NotFoundError(pageMessages.pageNotFound);
  // Revision 0: a page written without the model, no revision recorded; its live content is shown.
  if (row.number === null && row.revision !== 0) throw new NotFoundError(revisionMessages.revisionNotFound);
  const expiresAt = new Date(Math.floor((ctx.clock.now().getTime() + PREVIEW_LIFETIME_MS) / 1000) * 1000);
  const path = PREVIEW_PATH_PREFIX + signPreview(ctx.config.sessionSecret, { pageId, revision: row.revision, expiresAt, generation: row.preview_generation });
  // The link names its revision: the retention keeps that revision until the link expires.
  await ctx
    .db(REVISIONS_TABLE)
    .where({ page_id: pageId, number: row.revision })
    .update({ preview_until: ctx.db.raw('GREATEST(preview_until, ?::timestamptz)', [expiresAt]) });
  await recordAudit(ctx, {
    ...sourceOfActor(options.actor ?? null),
    action: 'page.preview_link_created',
    target: pageTarget({ id: pageId, title: row.title }),
    details: { revision: row.revision, expires_at: expiresAt.toISOString() },
  });
  return { url: ctx.config.baseUrl.replace(/\/+$/, '') + path, path, expires_at: expiresAt, revision: row.revision };
}

export interface PreviewContent extends ResolvedPage {
  /** The revision's state when the link is opened. */
  state: 'draft' | 'scheduled' | 'published' | 'superseded';
}

/**
 * What a preview shows: the page as its revision holds it (title, slug, template,
 * blocks with their media, SEO), placed under its parent's current chain (breadcrumbs,
 * whatever the visibility of the chain); null when the page or the revision is gone.
 * Two statements (three with images): the page with its revision, the chain.
 */
export async function readPreview(ctx: AppContext, claim: PreviewClaim): Promise<PreviewContent | null> {
  const row = await ctx
    .db(`${PAGES_TABLE} as p`)
    .leftJoin(`${REVISIONS_TABLE} as r`, function joinRevision() {
      this.on('r.page_id', '=', 'p.id').andOnVal('r.number', '=', claim.revision);
    })
    .where('p.id', claim.pageId)
    .first<
      | (Page & {
          preview_generation: number;
          r_number: number | null;
          r_title: string;
          r_slug: string;
          r_parent_id: number | null;
          r_template: string;
          r_blocks: unknown;
          r_seo: Record<string, unknown>;
          r_visibility: Page['visibility'];
          r_recorded_at: Date;
        })
      | undefined
    >(
      'p.*',
      'r.number as r_number',
      'r.title as r_title',
      'r.slug as r_slug',
      'r.parent_id as r_parent_id',
      'r.template as r_template',
      'r.blocks as r_blocks',
      'r.seo as r_seo',
      'r.visibility as r_visibility',
      'r.recorded_at as r_recorded_at',
    );
  if (!row || row.preview_generation !== (claim.generation ?? 0)) return null;
  const { r_number, r_title, r_slug, r_parent_id, r_template, r_blocks, r_seo, r_visibility, r_recorded_at, ...live } = row;
  let page: Page;
  if (r_number !== null) {
    page = {
      ...live,
      title: r_title,
      slug: r_slug,
      parent_id: r_parent_id,
      template: r_template,
      blocks: r_blocks as Page['blocks'],
      seo: r_seo ?? {},
      visibility: r_visibility,
      updated_at: r_recorded_at,
    };
  } else if (claim.revision === 0 && live.revision === 0) {
    page = live;
  } else {
    return null;
  }
  page.blocks = await attachMedia(ctx, page.blocks);
  const chain = page.parent_id === null ? [] : await chainOf(ctx, page.parent_id);
  const state =
    claim.revision === live.draft_revision
      ? live.scheduled_at
        ? 'scheduled'
        : 'draft'
      : claim.revision === (live.published_revision ?? live.revision)
        ? 'published'
        : 'superseded';
  return {
    page,
    ancestorTitles: chain.map((step) => step.title),
    ancestorIds: chain.map((step) => step.id),
    segments: [...chain.map((step) => step.slug), page.slug],
    state,
  };
}

/** The pages from the root down to `pageId` (itself included), as they are now. */
async function chainOf(ctx: AppContext, pageId: number): Promise<Array<{ id: number; title: string; slug: string }>> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ id: number; title: string; slug: string }> }>(
    `WITH RECURSIVE up AS (
       SELECT id, parent_id, title, slug, 1 AS depth FROM ${PAGES_TABLE} WHERE id = ?
       UNION ALL
       SELECT p.id, p.parent_id, p.title, p.slug, up.depth + 1 FROM ${PAGES_TABLE} p JOIN up ON p.id = up.parent_id WHERE up.depth < 256
     )
     SELECT id, title, slug FROM up ORDER BY depth DESC`,
    [pageId],
  );
  return rows;
}
