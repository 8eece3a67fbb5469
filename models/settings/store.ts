// The site's settings as the public site reads them: kept in memory per application
// (ctx.memo.modules), so a page render costs no statement for them, and a cached page
// hit reads nothing at all. Never stale: the table's trigger NOTIFYs every committed
// change (`all`, migrations/settings/), and the public cache's listener drops this copy
// with its answers; while the listener does not listen, every read goes to the
// database, as the cache's do. A read that raced a change is used but not kept.
//
// Outside the settings module (an app built without it, as some tests do), the
// defaults: APP_NAME, APP_TIMEZONE, nothing else.
import type { AppContext } from '../../lib/context.js';
import { createParagraphMarkdown } from '../pages/markdown.js';
import { readSettings, settingsOf, type FaviconSet, type SiteSettings } from './settings.js';

export const SETTINGS_MODULE = 'settings';

/** What the public site shows of the settings. */
export interface SiteLook extends SiteSettings {
  /** The favicon's PNG sizes, when there is one. */
  favicon: FaviconSet | null;
  /** The footer's Markdown subset as HTML (escaped, safe links only). */
  footerHtml: string;
}

interface SettingsMemo {
  current?: SiteLook;
  /** Moves at every change or loss: a read started before it is not kept. */
  epoch: number;
  /** /favicon.ico, built from the stored PNGs on first request. */
  icon?: Promise<Buffer | null>;
}

function memoOf(ctx: AppContext): SettingsMemo {
  let memo = ctx.memo.modules.get(SETTINGS_MODULE) as SettingsMemo | undefined;
  if (memo) return memo;
  const created: SettingsMemo = { epoch: 0 };
  const drop = () => {
    created.current = undefined;
    created.icon = undefined;
    created.epoch++;
  };
  const events = ctx.publicCache.events;
  events.on('change', (change: { all?: boolean }) => {
    if (change.all) drop();
  });
  events.on('lost', drop);
  events.on('listening', drop);
  ctx.memo.modules.set(SETTINGS_MODULE, created);
  memo = created;
  return memo;
}

/** The footer: paragraphs separated by a blank line, each in the paragraphs' Markdown subset. */
function footerHtml(text: string): string {
  if (!text.trim()) return '';
  const markdown = createParagraphMarkdown();
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => `<p>${markdown.render(paragraph)}</p>`)
    .join('\n');
}

function lookOf(stored: ReturnType<typeof settingsOf>): SiteLook {
  return { ...stored.settings, favicon: stored.favicon, footerHtml: footerHtml(stored.settings.footer) };
}

/** The site's settings for the public site: from memory when this process hears every change. */
export async function siteLook(ctx: AppContext): Promise<SiteLook> {
  if (!ctx.site.modules.includes(SETTINGS_MODULE)) return lookOf(settingsOf(ctx, undefined));
  const memo = memoOf(ctx);
  const cache = ctx.publicCache;
  if ((await cache.ready()) && memo.current) return memo.current;
  const epoch = memo.epoch;
  const look = lookOf(await readSettings(ctx));
  if (cache.hearsChanges && memo.epoch === epoch) memo.current = look;
  return look;
}

/** /favicon.ico's bytes, made once per settings version by `build`; null without a favicon. */
export async function siteIcon(ctx: AppContext, build: (favicon: FaviconSet) => Promise<Buffer>): Promise<Buffer | null> {
  const look = await siteLook(ctx);
  if (!look.favicon) return null;
  const memo = memoOf(ctx);
  if (memo.current !== look) return build(look.favicon);
  const favicon = look.favicon;
  memo.icon ??= build(favicon).catch((error: unknown) => {
    memo.icon = undefined;
    throw error;
  });
  return memo.icon;
}

/**
 * The settings when this process already holds them, else undefined: never a statement,
 * for pages that read nothing (the 404 page shows the site's title and logo once known).
 */
export function heldSiteLook(ctx: AppContext): SiteLook | undefined {
  if (!ctx.publicCache.hearsChanges) return undefined;
  return (ctx.memo.modules.get(SETTINGS_MODULE) as SettingsMemo | undefined)?.current;
}
