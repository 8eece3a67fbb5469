// What the pages module gives every theme's views (lib/themes.ts ViewHelpers): the
// server functions as Nunjucks filters, in-process, never HTTP. Nunjucks cannot wait
// for a global, so the data functions are asynchronous filters, used with `set`:
//   {% set children = page.id | listPublicChildPages %}
//   {% set guide = ['docs', 'guide'] | getPublishedPageBySegments %}
//   {% set photo = block.photo | media %}   (an `image` field: {url, alt, caption, width, height, picture} or none;
//   `{% from "site/picture.njk" import picture %}{{ picture(photo.picture, photo.alt) }}` draws it responsive)
// (in a loop, Nunjucks needs `asyncEach` around them). What they read is noted in the
// render's `themeReads`, so a cached page that shows it is dropped when it changes.
import nunjucks from 'nunjucks';
import { withPublicReads, type AppContext } from '../lib/context.js';
import { NotFoundError } from '../lib/errors.js';
import { createParagraphMarkdown } from '../models/pages/markdown.js';
import { getMediaForView } from '../models/pages/media.js';
import { getPublishedPageBySegments, listPublicChildPages } from '../models/pages/public.js';

/** What a theme's views read beyond the page: pages shown, parents (0: the root) whose children are listed. */
export interface ThemeReads {
  pages: number[];
  lists: number[];
  media: number[];
  /** The render's own context (the public reads' one, or the primary's for a preview): what the filters read with. */
  ctx: AppContext;
}

/** A render's record of what its theme views read, reading with `ctx`. */
export function themeReadsOf(ctx: AppContext): ThemeReads {
  const reads = { pages: [], lists: [], media: [] } as unknown as ThemeReads;
  // Not enumerable: a view that prints or iterates the record never meets the context.
  Object.defineProperty(reads, 'ctx', { value: ctx, enumerable: false });
  return reads;
}

type Done = (error: Error | null, value?: unknown) => void;

function readsOf(context: unknown): ThemeReads | undefined {
  const locals = (context as { ctx?: { themeReads?: ThemeReads } } | undefined)?.ctx;
  return locals?.themeReads;
}

const CHILDREN_MAX = 200;

/**
 * Runs a read with the render's context when the view is rendered by the pages module
 * (already inside its public reads), else with the app's, through publicReads.
 */
function read<T>(ctx: AppContext, noted: ThemeReads | undefined, run: (reads: AppContext) => Promise<T>): Promise<T> {
  return noted ? run(noted.ctx) : withPublicReads(ctx, run);
}

export function installPageViewHelpers(views: nunjucks.Environment, ctx: AppContext): void {
  views.addFilter(
    'listPublicChildPages',
    function (this: unknown, pageId: unknown, done: Done) {
      const parent = typeof pageId === 'number' && Number.isInteger(pageId) && pageId > 0 ? pageId : null;
      const noted = readsOf(this);
      noted?.lists.push(parent ?? 0);
      read(ctx, noted, (reads) => listPublicChildPages(reads, parent, { limit: CHILDREN_MAX })).then(
        (items) => done(null, items),
        (error: Error) => done(error),
      );
    },
    true,
  );
  views.addFilter(
    'getPublishedPageBySegments',
    function (this: unknown, segments: unknown, done: Done) {
      const list = Array.isArray(segments) ? segments.filter((segment): segment is string => typeof segment === 'string') : [];
      const noted = readsOf(this);
      read(ctx, noted, (reads) => getPublishedPageBySegments(reads, list)).then(
        (page) => {
          if (page) noted?.pages.push(page.id);
          // A page that does not exist yet may be created in any list: the root's is the one noted.
          else noted?.lists.push(0);
          done(null, page);
        },
        (error: Error) => done(error),
      );
    },
    true,
  );
  views.addFilter(
    'media',
    function (this: unknown, mediaId: unknown, done: Done) {
      if (typeof mediaId !== 'number' || !Number.isInteger(mediaId) || mediaId < 1) return done(null, null);
      const noted = readsOf(this);
      noted?.media.push(mediaId);
      read(ctx, noted, (reads) => getMediaForView(reads, mediaId)).then(
        (media) => done(null, media),
        (error: Error) => (error instanceof NotFoundError ? done(null, null) : done(error)),
      );
    },
    true,
  );
  // Called as functions, they could only give a promise: say how to use them instead.
  for (const [name, example] of [
    ['listPublicChildPages', '{% set children = page.id | listPublicChildPages %}'],
    ['getPublishedPageBySegments', "{% set other = ['docs', 'guide'] | getPublishedPageBySegments %}"],
  ]) {
    views.addGlobal(name, () => {
      throw new Error(`${name} is an asynchronous filter, not a function: ${example} (docs/themes.md)`);
    });
  }
  // A theme block's `markdown` field: paragraphs (a blank line between), in the paragraphs' subset, escaped.
  const markdown = createParagraphMarkdown();
  views.addFilter('markdown', (text: unknown) => {
    const source = typeof text === 'string' ? text : '';
    const html = source
      .split(/\n\s*\n/)
      .map((paragraph) => paragraph.trim())
      .filter(Boolean)
      .map((paragraph) => `<p>${markdown.render(paragraph)}</p>`)
      .join('\n');
    return new nunjucks.runtime.SafeString(html);
  });
}
