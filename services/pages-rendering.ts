// Public page rendering of the pages module, the one use case behind `/`, every page
// URL and the previews (and whatever else shows a page as the site does): the
// template's view with the blocks a template may receive, the sub-pages when something
// lists them, the navigation, breadcrumbs and the SEO metadata, rendered through the
// active theme's view environment (catalog.views, else ctx.views), never through a response. It returns the
// HTML and what the page shows; how an answer is cached and sent is the controllers'.
import type { AppContext } from '../lib/context.js';
import { renderView } from '../lib/views.js';
import { renderableBlocks, safeHref, type Block } from '../models/pages/blocks.js';
import { catalogFor, type PageCatalog } from '../models/pages/catalog.js';
import type { Picture } from '../models/pages/media-pictures.js';
import { readRenderFacts, type NavigationLink, type RenderFacts } from '../models/pages/navigation.js';
import type { PageReader } from '../models/pages/access.js';
import { listPublicChildrenAt, type PublicPageSummary, type ResolvedPage } from '../models/pages/public.js';
import { siteLook } from '../models/settings/store.js';
import { themeReadsOf } from './pages-view-helpers.js';

const HTML_TYPE = 'text/html; charset=utf-8';

/** What a rendered page shows, so that a cache can tell when it goes stale. */
interface PageShows {
  /** The page whose content it is (none for the list of root pages). */
  page?: number;
  /** The page and its ancestors, from the root down: their place, address or visibility matter. */
  pages: number[];
  /** Parents (0 = the root) whose sub-pages it lists. */
  lists: number[];
  /** Media rows whose data it shows. */
  media: number[];
  /** The site's navigation and menus (the root pages' or the linked pages' titles and addresses). */
  navigation: true;
}

export interface RenderedPage {
  html: string;
  contentType: typeof HTML_TYPE;
  /** The latest change of what it shows: the page, its navigation, its media. */
  lastModified?: Date;
  shows: PageShows;
}

/** The banner of a preview link: what it shows («Aperçu du brouillon»), until when, and the way back to the editor. */
interface PreviewBanner {
  revision: number;
  state: string;
  /** «Aperçu du brouillon», «Aperçu de la version en ligne»…: what the banner says first. */
  title: string;
  /** The page's editor («Retour à l'édition»; whoever may not edit is asked to sign in there). */
  editUrl: string;
  expiresAt: Date;
  url: string;
}

export interface RenderOptions {
  /** A preview: its banner, never indexed whatever the page's SEO says, no canonical URL (it may not exist yet). */
  preview?: PreviewBanner;
  /** A page for members, rendered for this reader alone (never cached): its child list is the reader's, and it is never indexed. */
  reader?: PageReader;
}

/** `path` under the site's base URL (an absolute URL stays as it is). */
export function absoluteUrl(baseUrl: string, path: string): string {
  return /^https?:\/\//i.test(path) ? path : baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : '/' + path);
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** Ids of the media an image block names (shown or not: a media created later would appear). */
function mediaIdsOf(blocks: unknown): number[] {
  const ids = new Set<number>();
  for (const block of Array.isArray(blocks) ? (blocks as Array<Record<string, unknown>>) : []) {
    if (block && block.type === 'image' && Number.isInteger(block.media_id)) ids.add(block.media_id as number);
  }
  return [...ids];
}

function latest(...times: Array<Date | string | undefined>): Date | undefined {
  const values = times.filter((time) => time !== undefined).map((time) => new Date(time).getTime());
  return values.length ? new Date(Math.max(...values)) : undefined;
}

/** Paragraphs get their Markdown subset rendered (markdown.ts); the block objects are copies. */
function withParagraphHtml(catalog: PageCatalog, blocks: Block[]): Block[] {
  for (const block of blocks) if (block.type === 'paragraph' && typeof block.text === 'string') block.html = catalog.markdown.render(block.text);
  return blocks;
}

/** The links with the one of the page shown (`page`) or of its section (`true`) marked for aria-current. */
function navigationAt(navigation: NavigationLink[], url: string): Array<NavigationLink & { current?: string }> {
  return navigation.map((link) => {
    const children = link.children ? navigationAt(link.children, url) : undefined;
    const marked = children ? { ...link, children } : link;
    if (link.url === url) return { ...marked, current: 'page' };
    return link.url.startsWith('/') && link.url !== '/' && url.startsWith(link.url + '/') ? { ...marked, current: 'true' } : marked;
  });
}

/**
 * A menu of the site as HTML (the header's navigation, the footer's menu), rendered
 * once per view, distinct links and current link: a template loop over 13 links cost
 * more than the rest of a page's render (65 µs against 53 µs, measured), and every
 * page of a section shows the same one.
 */
async function menuHtml(ctx: AppContext, catalog: PageCatalog, view: string, navigation: NavigationLink[], url: string): Promise<string> {
  const links = navigationAt(navigation, url);
  const key = view + JSON.stringify(links);
  const known = catalog.fragments.get(key);
  if (known !== undefined) return known;
  const html = await renderView(catalog.views ?? ctx.views, view, { navigation: links });
  catalog.fragments.set(key, html);
  return html;
}

/** The header's navigation and the footer's menu (none while it has never been edited: the layout's own footer). */
async function menusHtml(ctx: AppContext, catalog: PageCatalog, facts: RenderFacts, url: string): Promise<{ navigationHtml: string; footerHtml?: string }> {
  return {
    navigationHtml: await menuHtml(ctx, catalog, 'site/navigation.njk', facts.navigation, url),
    footerHtml: facts.footer ? await menuHtml(ctx, catalog, 'site/footer-menu.njk', facts.footer, url) : undefined,
  };
}

/**
 * A published (or previewed) page at `url` as the site shows it. Its statements run
 * with `ctx`: the public reads' context for the site, the primary for a preview.
 */
export async function renderPage(
  ctx: AppContext,
  builtIn: PageCatalog,
  resolved: ResolvedPage,
  url: string,
  options: RenderOptions = {},
): Promise<RenderedPage> {
  const { page, ancestorTitles, ancestorIds, segments } = resolved;
  // From memory (models/settings/store.ts): no statement once read. The active theme is
  // taken from this same read, so a render reads the settings once at most.
  const site = await siteLook(ctx);
  const catalog = await catalogFor(ctx, builtIn, site.theme);
  const template = catalog.templates.get(page.template);
  const blocks = withParagraphHtml(catalog, renderableBlocks(ctx, catalog.blocks, page.blocks, page.id));
  let children: PublicPageSummary[] = [];
  const listsChildren = template.listsChildren || blocks.some((block) => block.type === 'children');
  if (listsChildren) {
    children = (await listPublicChildrenAt(ctx, page.id, '/' + segments.join('/'), { limit: 200, reader: options.reader })).items;
  }
  const seo = page.seo && typeof page.seo === 'object' ? page.seo : {};
  const firstImage = blocks.find((block) => block.type === 'image');
  // The first picture is likely the largest paint: fetched at once, never lazily.
  if (firstImage) firstImage.first = true;
  // Its card cropped around the focal point once made, else the picture itself.
  const card = (firstImage?.picture as Picture | null | undefined)?.social ?? undefined;
  const image = safeHref(seo.image) ?? card?.url ?? (firstImage?.url as string | undefined);
  const media = mediaIdsOf(page.blocks);
  const facts = await readRenderFacts(ctx, media, site.home_page_id);
  const isHome = url === '/';
  const preview = options.preview;
  const shownImage = image ?? site.social_image_url ?? undefined;
  const themeReads = themeReadsOf(ctx);
  const html = await renderView(catalog.views ?? ctx.views, template.view, {
    site,
    page,
    blocks,
    children,
    preview,
    // The menus as data, for a theme's own layout (the links of the header's and the footer's).
    menus: { header: facts.navigation, footer: facts.footer },
    // Filled by the theme's data filters (services/pages-view-helpers.ts): what else the page shows.
    themeReads,
    // A theme block's view by its type (theme.json names it); the site's own are site/blocks/<type>.njk.
    blockViews: catalog.blockViews,
    // A theme's views (its block views, or the built-in ones it overrides) may call the data
    // filters, which only asyncEach waits for; the site's own views do not, and a plain loop costs less.
    themeViews: catalog.views !== undefined,
    ...(await menusHtml(ctx, catalog, facts, url)),
    // The home page has none; every other level starts at the home page.
    breadcrumbs: isHome ? undefined : ancestorTitles.map((title, index) => ({ title, url: '/' + segments.slice(0, index + 1).join('/') })),
    meta: {
      title: nonEmpty(seo.title) ?? page.title,
      description: nonEmpty(seo.description),
      canonical: preview ? undefined : absoluteUrl(ctx.config.baseUrl, url),
      image: shownImage ? absoluteUrl(ctx.config.baseUrl, shownImage) : undefined,
      imageSize: card && shownImage === card.url ? { width: card.width, height: card.height } : undefined,
      // The first image block's text alternative, when it is the picture shown.
      imageAlt: shownImage !== undefined && (shownImage === firstImage?.url || shownImage === card?.url) ? nonEmpty(firstImage?.alt) : undefined,
      noindex: preview !== undefined || options.reader !== undefined || seo.noindex === true || site.noindex,
    },
  });
  return {
    html,
    contentType: HTML_TYPE,
    lastModified: latest(page.updated_at, facts.changedAt),
    shows: {
      page: page.id,
      pages: [...ancestorIds, page.id, ...themeReads.pages],
      lists: [...(listsChildren ? [page.id] : []), ...themeReads.lists],
      media: [...media, ...themeReads.media],
      navigation: true,
    },
  };
}

/** `/` on a site without a home page: the list of the root pages (`roots`, already read). */
export async function renderRootList(ctx: AppContext, builtIn: PageCatalog, roots: PublicPageSummary[]): Promise<RenderedPage> {
  const site = await siteLook(ctx);
  const facts = await readRenderFacts(ctx, [], site.home_page_id);
  const catalog = await catalogFor(ctx, builtIn, site.theme);
  const themeReads = themeReadsOf(ctx);
  const html = await renderView(catalog.views ?? ctx.views, 'site/home.njk', {
    site,
    children: roots,
    menus: { header: facts.navigation, footer: facts.footer },
    themeReads,
    ...(await menusHtml(ctx, catalog, facts, '/')),
    meta: {
      title: site.title,
      canonical: absoluteUrl(ctx.config.baseUrl, '/'),
      image: site.social_image_url ? absoluteUrl(ctx.config.baseUrl, site.social_image_url) : undefined,
      noindex: site.noindex,
    },
  });
  // The root list shows root pages only: it changes with them (and with the creation of a home page).
  return {
    html,
    contentType: HTML_TYPE,
    lastModified: facts.changedAt,
    shows: { pages: themeReads.pages, lists: [0, ...themeReads.lists], media: themeReads.media, navigation: true },
  };
}

/**
 * A site view that is no page (the search results at `url`) in the site's frame: the
 * active theme's view, the settings, the header's navigation and the footer's menu.
 * It shows the navigation only (what else it shows is the caller's to say).
 */
export async function renderSiteView(
  ctx: AppContext,
  builtIn: PageCatalog,
  view: string,
  url: string,
  locals: Record<string, unknown> & { meta: { title: string; noindex?: boolean } },
): Promise<RenderedPage> {
  const site = await siteLook(ctx);
  const facts = await readRenderFacts(ctx, [], site.home_page_id);
  const catalog = await catalogFor(ctx, builtIn, site.theme);
  const html = await renderView(catalog.views ?? ctx.views, view, {
    site,
    menus: { header: facts.navigation, footer: facts.footer },
    ...(await menusHtml(ctx, catalog, facts, url)),
    ...locals,
  });
  return { html, contentType: HTML_TYPE, lastModified: facts.changedAt, shows: { pages: [], lists: [], media: [], navigation: true } };
}
