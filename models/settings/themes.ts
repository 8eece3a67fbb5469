// The installed themes: one folder each, in themes/ (built-in, shipped with the core)
// and in THEMES_DIR (the site's own; a missing folder holds none). Read from disk at
// each listing — a few small files, read only by the administration — so a theme
// copied into THEMES_DIR is listed without a restart. A theme whose theme.json breaks
// a rule is listed as invalid, with the problem, and cannot be activated.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../lib/config.js';
import { builtInThemesDir } from '../../lib/paths.js';
import { settingsMessages } from './messages.js';
import { parseManifest, THEME_NAME_PATTERN, type ThemeManifest } from './theme-manifest.js';

export interface InstalledTheme {
  name: string;
  /** The theme's folder. */
  directory: string;
  builtIn: boolean;
  manifest?: ThemeManifest;
  /** theme.json as read: what a loaded theme's key is made of. */
  source?: string;
  /** Why it cannot be activated (undefined: valid). */
  error?: string;
}

async function foldersOf(directory: string): Promise<string[]> {
  try {
    const entries = await readdir(directory, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory() && THEME_NAME_PATTERN.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function readTheme(directory: string, name: string, builtIn: boolean): Promise<InstalledTheme> {
  const folder = path.join(directory, name);
  let source: string;
  try {
    source = await readFile(path.join(folder, 'theme.json'), 'utf8');
  } catch {
    return { name, directory: folder, builtIn, error: settingsMessages.themeManifestMissing };
  }
  const parsed = parseManifest(source);
  if ('error' in parsed) return { name, directory: folder, builtIn, source, error: parsed.error };
  if (parsed.manifest.name !== name) return { name, directory: folder, builtIn, source, error: settingsMessages.themeNameMismatch(parsed.manifest.name, name) };
  return { name, directory: folder, builtIn, source, manifest: parsed.manifest };
}

/** Every installed theme, built-in first; a site theme named like a built-in one is listed invalid. */
export async function listInstalledThemes(config: Config): Promise<InstalledTheme[]> {
  const themes: InstalledTheme[] = [];
  for (const name of await foldersOf(builtInThemesDir)) themes.push(await readTheme(builtInThemesDir, name, true));
  const builtIn = new Set(themes.map((theme) => theme.name));
  if (path.resolve(config.themesDir) === path.resolve(builtInThemesDir)) return themes;
  for (const name of await foldersOf(config.themesDir)) {
    const theme = await readTheme(config.themesDir, name, false);
    themes.push(builtIn.has(name) ? { ...theme, manifest: undefined, error: settingsMessages.themeNameTaken(name) } : theme);
  }
  return themes;
}

/** The installed theme of that name (the built-in one when a site theme shares it), valid or not. */
export async function findInstalledTheme(config: Config, name: string): Promise<InstalledTheme | undefined> {
  return (await listInstalledThemes(config)).find((theme) => theme.name === name);
}

/** Why `name` cannot be the active theme, or undefined when it can (installed and valid). */
export async function themeRefusal(config: Config, name: string): Promise<string | undefined> {
  const theme = await findInstalledTheme(config, name);
  if (!theme) return settingsMessages.themeInvalid;
  return theme.error ? settingsMessages.themeUnusable(theme.error) : undefined;
}
