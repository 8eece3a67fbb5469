// POST /admin/pages/:id/live-preview — the editor's live preview (with JavaScript): the
// form as it stands, unsaved, rendered as the site renders a page (services/pages-rendering.ts,
// the preview links' renderer), for the editor's sandboxed frame. Nothing is written:
// the page's row gives what the form does not hold (its id, its place, its dates), the
// form gives the rest. A form that does not read (a value to correct) is the usual 400.
import { ValidationError } from '../../lib/errors.js';
import { placesOf } from '../../models/pages/admin-tree.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { attachMedia } from '../../models/pages/media.js';
import { getPage } from '../../models/pages/pages.js';
import type { Call } from '../../routes/define.js';
import { renderPage } from '../../services/pages-rendering.js';
import { slugify } from '../../models/pages/slugs.js';
import { applyChoices } from './admin-screens-conflict.js';
import { readDocument } from './admin-screens-document.js';
import { seoFrom } from './admin-screens.js';
import { pageScreenMessages } from './messages.js';

export async function renderLivePreview(catalog: PageCatalog, call: Call<{ id: number }>): Promise<void> {
  const { ctx, params, res } = call;
  const body = (call.req.body ?? {}) as Record<string, unknown>;
  applyChoices(body);
  const { parsed, details } = readDocument(catalog, body);
  if (!parsed) throw new ValidationError(pageScreenMessages.invalidDocument, { details });
  const [page, places] = await Promise.all([getPage(ctx, params.id), placesOf(ctx, [params.id])]);
  const place = places.get(params.id);
  const input = parsed.page;
  const slug = input.slug || slugify(input.title) || page.slug;
  const segments = [...(place?.path ?? `/${page.slug}`).split('/').filter(Boolean).slice(0, -1), slug];
  const shown = {
    ...page,
    title: input.title,
    slug,
    template: input.template,
    seo: seoFrom(input),
    blocks: await attachMedia(ctx, parsed.blocks),
  };
  const url = segments.length === 1 && segments[0] === 'accueil' ? '/' : `/${segments.join('/')}`;
  const rendered = await renderPage(
    ctx,
    catalog,
    { page: shown, ancestorTitles: place?.ancestorTitles ?? [], ancestorIds: place?.ancestors ?? [], segments },
    url,
  );
  // Never kept, never indexed: it is what someone is typing.
  res.set('Cache-Control', 'no-store');
  res.set('X-Robots-Tag', 'noindex');
  res.set('Content-Type', rendered.contentType);
  res.send(rendered.html);
}
