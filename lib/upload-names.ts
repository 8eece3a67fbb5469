// The names uploaded files are stored under, whatever the storage: `<folder>/<32 hex>.<ext>`
// (`avatars/3f…9a.png`, `media/…jpg`), the URL without its /uploads/ prefix; a file made
// from one (a media's rendition or crop) adds a suffix to its name (`media/3f…9a-w640.avif`,
// `media/3f…9a-og-50-40.jpg`). Anything else (`..`, absolute paths, dotfiles, other
// extensions) is not a stored name.
export const UPLOADS_URL_PREFIX = '/uploads/';

/** A folder of stored files (`avatars`, `media`). */
export const UPLOAD_FOLDER = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const FILE = /^[a-f0-9]{32}(-[a-z0-9]+(-[0-9]{1,3}){0,2})?\.(png|jpg|webp|avif)$/;

/** Content-Type served for each stored extension (what storeImage and the renditions write). */
const SERVED_CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
};

/** The stored name of a path or URL (`/uploads/media/….png` → `media/….png`), or undefined when it is not one. */
export function storedName(pathOrUrl: string): string | undefined {
  const relative = pathOrUrl.startsWith(UPLOADS_URL_PREFIX) ? pathOrUrl.slice(UPLOADS_URL_PREFIX.length) : pathOrUrl;
  const parts = relative.split('/');
  if (parts.length !== 2 || !UPLOAD_FOLDER.test(parts[0]) || !FILE.test(parts[1])) return undefined;
  return relative;
}

/** The Content-Type of a stored name, from its extension. */
export function contentTypeOf(name: string): string {
  return SERVED_CONTENT_TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';
}
