// A theme's assets (files under assets/, and its thumbnail beside theme.json), named by
// their content: `theme.css` is served as `theme.<8 hex of its SHA-256>.css`, hashed
// once when the theme is loaded, so an answer may be cached for a year and a changed
// file gets a new address. Only the hashed names exist: nothing else under the theme's
// folder can be asked for (the lookup is a map, never a path joined from the URL).
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ASSET_PATTERN } from '../models/settings/theme-manifest.js';

interface ThemeAsset {
  /** The file on disk. */
  file: string;
  bytes: Buffer;
}

export interface ThemeAssets {
  /** `/theme/<name>/<hashed name>` by the asset's name under assets/ (`theme.css`). */
  urls: Map<string, string>;
  /** The files by their hashed name under the theme (`theme.3f2a1b9c.css`, `fonts/a.1b2c3d4e.woff2`). */
  files: Map<string, ThemeAsset>;
  /** The thumbnail's address (thumbnail.png or .svg beside theme.json), if there is one. */
  thumbnailUrl?: string;
}

const HASH_LENGTH = 8;
/** The files a theme may hold; anything else under assets/ is not served. */
const MAX_ASSETS = 500;

function hashedName(name: string, bytes: Buffer): string {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, HASH_LENGTH);
  const extension = path.posix.extname(name);
  return `${name.slice(0, name.length - extension.length)}.${hash}${extension}`;
}

async function filesUnder(directory: string): Promise<string[]> {
  const found: string[] = [];
  let entries;
  try {
    entries = await readdir(directory, { withFileTypes: true, recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const name = path.relative(directory, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    if (ASSET_PATTERN.test(name)) found.push(name);
  }
  return found.sort().slice(0, MAX_ASSETS);
}

/** Reads and hashes the theme's assets and thumbnail. */
export async function loadThemeAssets(themeName: string, directory: string): Promise<ThemeAssets> {
  const assets: ThemeAssets = { urls: new Map(), files: new Map() };
  const add = async (name: string, file: string): Promise<string> => {
    const bytes = await readFile(file);
    const hashed = hashedName(name, bytes);
    assets.files.set(hashed, { file, bytes });
    const url = `/theme/${themeName}/${hashed}`;
    assets.urls.set(name, url);
    return url;
  };
  for (const name of await filesUnder(path.join(directory, 'assets'))) await add(name, path.join(directory, 'assets', name));
  for (const thumbnail of ['thumbnail.svg', 'thumbnail.png']) {
    const url = await add(thumbnail, path.join(directory, thumbnail)).catch(() => undefined);
    if (url) {
      // Not an asset of the theme's views: only the settings screen shows it.
      assets.urls.delete(thumbnail);
      assets.thumbnailUrl = url;
      break;
    }
  }
  return assets;
}
