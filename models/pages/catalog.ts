// What a pages module instance knows: its page templates and its block types. One
// catalog is created by the module's register() and handed to the route handlers that
// need it; model calls given none use a fresh built-in one.
import { createBlockRegistry, type BlockRegistry } from './blocks.js';
import { LRUCache } from 'lru-cache';
import { createParagraphMarkdown, type ParagraphMarkdown } from './markdown.js';
import { createTemplateRegistry, type TemplateRegistry } from './templates.js';

export interface PageCatalog {
  templates: TemplateRegistry;
  blocks: BlockRegistry;
  /** Paragraph blocks' Markdown subset, rendered for the public site. */
  markdown: ParagraphMarkdown;
  /** Site fragments rendered once and reused (the header's navigation, by its links). */
  fragments: LRUCache<string, string>;
}

/** The built-in templates (`default`, `section`) and block types. */
export function createPageCatalog(): PageCatalog {
  return {
    templates: createTemplateRegistry(),
    blocks: createBlockRegistry(),
    markdown: createParagraphMarkdown(),
    fragments: new LRUCache<string, string>({ max: 256 }),
  };
}
