// What a pages module instance knows: its page templates and its block types. One
// catalog is created by the module's register() and handed to the route handlers that
// need it; model calls given none use a fresh built-in one. The active theme adds its
// own (lib/themes.ts): the catalog a request uses is derived from the built-in one and
// that theme, once per theme (and version of its theme.json), and kept with the
// built-in catalog, since the theme may change in another process at any time.
import type nunjucks from 'nunjucks';
import type { AppContext } from '../../lib/context.js';
import { activeTheme, type SiteTheme } from '../../lib/themes.js';
import { createBlockRegistry, type BlockRegistry } from './blocks.js';
import { LRUCache } from 'lru-cache';
import { createParagraphMarkdown, type ParagraphMarkdown } from './markdown.js';
import { createTemplateRegistry, type TemplateRegistry } from './templates.js';
import { themeBlockType, themeTemplate } from './theme-blocks.js';

export interface PageCatalog {
  templates: TemplateRegistry;
  blocks: BlockRegistry;
  /** Paragraph blocks' Markdown subset, rendered for the public site. */
  markdown: ParagraphMarkdown;
  /** Site fragments rendered once and reused (the header's navigation, by its links). */
  fragments: LRUCache<string, string>;
  /** The public site's environment (the active theme's); undefined: the app's own (ctx.views). */
  views?: nunjucks.Environment;
  /** The active theme's name, when the catalog is derived from one. */
  theme?: string;
  /** The theme's block views by type (theme.json's `view`); the built-in types' are site/blocks/<type>.njk. */
  blockViews: Record<string, string>;
  /** The built-in catalog this one was derived from (undefined: this is it). */
  builtIn?: PageCatalog;
  /** The catalogs derived from this one, per theme (`name@key`). */
  themed: Map<string, PageCatalog>;
}

/** The built-in templates (`default`, `section`) and block types. */
export function createPageCatalog(): PageCatalog {
  return {
    templates: createTemplateRegistry(),
    blocks: createBlockRegistry(),
    markdown: createParagraphMarkdown(),
    fragments: new LRUCache<string, string>({ max: 256 }),
    blockViews: {},
    themed: new Map(),
  };
}

/** The built-in catalog with the theme's templates and block types (never replacing a built-in block type). */
function deriveCatalog(base: PageCatalog, theme: SiteTheme): PageCatalog {
  const derived: PageCatalog = { ...createPageCatalog(), markdown: base.markdown, views: theme.views, theme: theme.name, builtIn: base };
  for (const template of base.templates.list()) derived.templates.register(base.templates.get(template.name));
  for (const type of base.blocks.list()) derived.blocks.register(type);
  for (const [name, template] of Object.entries(theme.templates)) derived.templates.register(themeTemplate(name, template));
  for (const [name, block] of Object.entries(theme.blocks)) {
    if (base.blocks.get(name)) continue;
    derived.blocks.register(themeBlockType(name, block));
    derived.blockViews[name] = block.view;
  }
  return derived;
}

/**
 * The catalog of the active theme (the built-in one in an app without themes). `chosen`:
 * the theme setting when the caller has already read the settings.
 */
export async function catalogFor(ctx: AppContext, from: PageCatalog, chosen?: string): Promise<PageCatalog> {
  const base = from.builtIn ?? from;
  const theme = await activeTheme(ctx, chosen);
  if (!theme) return base;
  const key = `${theme.name}@${theme.key}`;
  let derived = base.themed.get(key);
  if (!derived) base.themed.set(key, (derived = deriveCatalog(base, theme)));
  return derived;
}
