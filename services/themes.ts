// The settings module's theme source (lib/themes.ts): the active theme is the site
// setting `theme` (models/settings/store.ts, in memory and refreshed on NOTIFY, so a
// switch made in any process is used by every process at its next render). A theme is
// loaded once per application and process, on first use: its views/ in front of the
// site's in a Nunjucks environment of its own, its assets hashed (services/theme-assets.ts).
// A theme that cannot be loaded (removed, or its theme.json broken since it was chosen)
// gives way to the built-in `default`, and the log says so once.
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import nunjucks from 'nunjucks';
import { warnOnce, type AppContext } from '../lib/context.js';
import type { SiteTheme, ThemeSource } from '../lib/themes.js';
import { createViews } from '../lib/views.js';
import { DEFAULT_THEME } from '../models/settings/schema.js';
import { heldSiteLook, siteLook } from '../models/settings/store.js';
import { findInstalledTheme, listInstalledThemes } from '../models/settings/themes.js';
import type { ThemeManifest } from '../models/settings/theme-manifest.js';
import { loadThemeAssets, type ThemeAssets } from './theme-assets.js';

export interface LoadedTheme extends SiteTheme {
  manifest: ThemeManifest;
  assets: ThemeAssets;
}

interface ThemesMemo {
  loading: Map<string, Promise<LoadedTheme | undefined>>;
  loaded: Map<string, LoadedTheme>;
}

const THEMES_MEMO = 'settings.themes';
/** How long a theme that could not be loaded is not tried again. */
const RETRY_MS = 10_000;

function memoOf(ctx: AppContext): ThemesMemo {
  let memo = ctx.memo.modules.get(THEMES_MEMO) as ThemesMemo | undefined;
  if (!memo) ctx.memo.modules.set(THEMES_MEMO, (memo = { loading: new Map(), loaded: new Map() }));
  return memo;
}

function themeViews(ctx: AppContext, directory: string, manifest: ThemeManifest, assets: ThemeAssets): nunjucks.Environment {
  const own = path.join(directory, 'views');
  const views = createViews(ctx.config, ctx.clock, ctx.site.viewDirectories, existsSync(own) ? [own] : []);
  for (const install of ctx.site.viewHelpers) install(views, ctx);
  // What the application gives every view (app.ts): the passkeys library's hashed address.
  views.addGlobal('webauthnBrowserUrl', ctx.views.getGlobal('webauthnBrowserUrl') as unknown);
  views.addGlobal('themeName', manifest.name);
  // The hashed address of an asset (`themeAsset('theme.css')`); empty for a file the theme does not hold.
  views.addGlobal('themeAsset', (name: unknown) => (typeof name === 'string' ? (assets.urls.get(name) ?? '') : ''));
  views.addGlobal(
    'themeStylesheets',
    manifest.stylesheets.map((name) => assets.urls.get(name)).filter((url): url is string => url !== undefined),
  );
  views.addGlobal('themeSettings', manifest.settings);
  return views;
}

async function load(ctx: AppContext, name: string): Promise<LoadedTheme | undefined> {
  const installed = await findInstalledTheme(ctx.config, name);
  if (!installed?.manifest || installed.source === undefined) {
    warnOnce(ctx, `themes.unusable.${name}`, 'theme cannot be loaded', { theme: name, reason: installed?.error ?? 'not installed' });
    return undefined;
  }
  const { manifest, directory } = installed;
  const assets = await loadThemeAssets(name, directory);
  return {
    name,
    key: createHash('sha256').update(installed.source).digest('hex').slice(0, 16),
    templates: manifest.templates,
    blocks: manifest.blocks,
    views: themeViews(ctx, directory, manifest, assets),
    manifest,
    assets,
  };
}

/** The theme of that name, loaded once per application (undefined when it cannot be). */
function loadedTheme(ctx: AppContext, name: string): Promise<LoadedTheme | undefined> {
  const memo = memoOf(ctx);
  let loading = memo.loading.get(name);
  if (!loading) {
    loading = load(ctx, name).then((theme) => {
      if (theme) memo.loaded.set(name, theme);
      // A theme that could not be loaded is tried again a little later (it may be fixed),
      // not at every page: each try reads the themes' folders.
      else setTimeout(() => memo.loading.delete(name), RETRY_MS).unref();
      return theme;
    });
    loading.catch(() => memo.loading.delete(name));
    memo.loading.set(name, loading);
  }
  return loading;
}

/** A bare theme for a site whose built-in theme folder is missing: the app's own views. */
function bareTheme(ctx: AppContext): SiteTheme {
  return { name: DEFAULT_THEME, key: 'bare', templates: {}, blocks: {}, views: ctx.views };
}

export const settingsThemeSource: ThemeSource = {
  async active(ctx, given) {
    const chosen = given ?? (await siteLook(ctx)).theme;
    return (await loadedTheme(ctx, chosen)) ?? (await loadedTheme(ctx, DEFAULT_THEME)) ?? bareTheme(ctx);
  },
  held(ctx) {
    const loaded = memoOf(ctx).loaded;
    const chosen = heldSiteLook(ctx)?.theme ?? DEFAULT_THEME;
    const theme = loaded.get(chosen);
    if (theme) return theme;
    // Files only, no statement: the next page that reads nothing finds it loaded.
    void loadedTheme(ctx, chosen).catch((error: unknown) => ctx.logger.warn({ err: error, theme: chosen }, 'theme could not be loaded'));
    return loaded.get(DEFAULT_THEME);
  },
};

/** An installed theme as the API and the settings screen list it. */
export interface ThemeListItem {
  name: string;
  label: string;
  version: string | null;
  description: string;
  active: boolean;
  valid: boolean;
  error: string | null;
  /** The thumbnail's hashed address, or null (the screen shows a neutral placeholder). */
  thumbnail_url: string | null;
}

/** The installed themes, built-in first, the active one marked. */
export async function listThemes(ctx: AppContext): Promise<ThemeListItem[]> {
  const active = (await siteLook(ctx)).theme;
  const items: ThemeListItem[] = [];
  for (const theme of await listInstalledThemes(ctx.config)) {
    const loaded = theme.manifest ? await loadedTheme(ctx, theme.name) : undefined;
    items.push({
      name: theme.name,
      label: theme.manifest?.label ?? theme.name,
      version: theme.manifest?.version ?? null,
      description: theme.manifest?.description ?? '',
      active: theme.name === active,
      valid: theme.error === undefined,
      error: theme.error ?? null,
      thumbnail_url: loaded?.assets.thumbnailUrl ?? null,
    });
  }
  return items;
}

/** An asset of an installed valid theme by its hashed name, or undefined. */
export async function themeAsset(ctx: AppContext, themeName: string, file: string) {
  return (await loadedTheme(ctx, themeName))?.assets.files.get(file);
}
