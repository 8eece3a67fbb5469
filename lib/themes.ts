// The seam between the site's look and the modules that render it (issue 24, item 3):
// a module that knows themes (the settings module) declares a ThemeSource through
// register(); a module that renders the site (pages) asks it for the active theme —
// its Nunjucks environment, templates and block types — and never imports how themes
// are found or loaded. Without a source, the app's own views and nothing declared.
import type nunjucks from 'nunjucks';
import type { AppContext } from './context.js';

export const THEME_FIELD_TYPES = ['text', 'markdown', 'image', 'url', 'select', 'number', 'boolean'] as const;
type ThemeFieldType = (typeof THEME_FIELD_TYPES)[number];

/** A field of a theme's block type, as theme.json declares it. */
export interface ThemeField {
  type: ThemeFieldType;
  label: string;
  required: boolean;
  /** The choices of a `select`. */
  options?: Array<{ value: string; label: string }>;
  /** Longest text (characters) or largest number. */
  max?: number;
  /** Shortest text (characters) or smallest number. */
  min?: number;
}

export interface ThemeTemplate {
  label: string;
  /** Nunjucks view, named as the site's views are (`site/templates/guide.njk`). */
  view: string;
  listsChildren: boolean;
}

export interface ThemeBlock {
  label: string;
  view: string;
  fields: Record<string, ThemeField>;
}

/** The active theme as the renderers see it. */
export interface SiteTheme {
  name: string;
  /** Moves with the theme's declaration (a hash of its theme.json): what derived caches are keyed by. */
  key: string;
  templates: Record<string, ThemeTemplate>;
  blocks: Record<string, ThemeBlock>;
  /** The public site's environment: the theme's views/ in front of the site's. */
  views: nunjucks.Environment;
}

export interface ThemeSource {
  /** The active theme (the site setting, or `chosen` when the caller read it already), loaded on first use in this process. */
  active(ctx: AppContext, chosen?: string): Promise<SiteTheme>;
  /** The active theme when this process already holds it, without a statement (the 404 page reads nothing). */
  held(ctx: AppContext): SiteTheme | undefined;
}

/** What a module adds to every theme's environment (filters, globals): data for theme views, in-process. */
export type ViewHelpers = (views: nunjucks.Environment, ctx: AppContext) => void;

/** The active theme, or undefined in an app whose modules declare no theme source. */
export function activeTheme(ctx: AppContext, chosen?: string): Promise<SiteTheme | undefined> {
  return ctx.site.themeSource ? ctx.site.themeSource.active(ctx, chosen) : Promise.resolve(undefined);
}

/** The site's environment when held already (see ThemeSource.held), else the app's. */
export function heldSiteViews(ctx: AppContext): nunjucks.Environment {
  return ctx.site.themeSource?.held(ctx)?.views ?? ctx.views;
}
