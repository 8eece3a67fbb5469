// The Markdown of paragraph blocks on the public site: a small subset (emphasis,
// strong, links, line breaks) through markdown-it, with raw HTML off and every other
// rule off, so a paragraph written before this existed renders as it did (only `*`,
// `_` and `[…](…)` change meaning). A link follows the rule of link blocks (safeHref:
// http(s) or a path of this site); anything else (`javascript:`, `//host`, `mailto:`)
// stays text, never a link. One instance per catalog, so per application.
import markdownIt, { type MarkdownIt } from 'markdown-it';
import { LRUCache } from 'lru-cache';
import { safeHref } from './blocks.js';

export interface ParagraphMarkdown {
  /** The paragraph's text as inline HTML (escaped; `<br>` for each line break). */
  render(text: string): string;
}

// Rendered paragraphs kept by text: an uncached page render then costs a map lookup
// per paragraph. Bounded in characters (texts are at most 20,000 characters).
const MEMO_MAX_CHARS = 2_000_000;

function createParser(): MarkdownIt {
  const md = markdownIt('zero', { html: false, breaks: true, linkify: false, typographer: false });
  // 'zero' keeps only text and paragraphs; emphasis covers *em* and **strong**.
  md.enable(['emphasis', 'link', 'newline']);
  // markdown-it hands over the normalized (percent-encoded) destination.
  md.validateLink = (url: string) => safeHref(url) !== null;
  return md;
}

export function createParagraphMarkdown(): ParagraphMarkdown {
  // Built on first use: model calls create catalogs that never render.
  let md: MarkdownIt | undefined;
  const memo = new LRUCache<string, string>({
    maxSize: MEMO_MAX_CHARS,
    sizeCalculation: (html, text) => Math.max(1, html.length + text.length),
  });
  return {
    render(text) {
      const known = memo.get(text);
      if (known !== undefined) return known;
      const html = (md ??= createParser()).renderInline(text);
      memo.set(text, html);
      return html;
    },
  };
}
