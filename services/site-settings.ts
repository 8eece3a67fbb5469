// The settings module's use cases, called by the JSON routes (/app/api/admin/settings)
// and by the screen (/admin/settings) alike: a change of the scalar settings, and the
// three images (logo, favicon, default social image), stored through ctx.uploads (on
// disk or in PostgreSQL, UPLOAD_STORAGE) so every host of the site serves them. A
// favicon is stored as PNGs of each size the site links (sharp), and /favicon.ico is
// made of the three smallest.
import type Sharp from 'sharp';
import { inTransaction, type AppContext } from '../lib/context.js';
import { ValidationError } from '../lib/errors.js';
import { lazyRequire } from '../lib/lazy-require.js';
import { settingsMessages } from '../models/settings/messages.js';
import type { Origin } from '../lib/origin.js';
import { storedName } from '../lib/upload-names.js';
import { removeStoredFile, storeImage, type UploadedImage } from '../lib/uploads.js';
import {
  FAVICON_SIZES,
  readSettings,
  setSettingsImage,
  updateSettings,
  type FaviconSet,
  type SettingsActor,
  type SettingsImage,
  type SettingsPatch,
  type SiteSettings,
} from '../models/settings/settings.js';

// Loaded by the first favicon, not at every start.
const sharp = lazyRequire<typeof Sharp>('sharp');

const UPLOAD_FOLDER = 'site';

function actorOf(origin: Origin): SettingsActor | null {
  return origin.userId === null ? null : { id: origin.userId, name: origin.name ?? '', ip: origin.ip };
}

/** The settings as the API shows them. */
export async function currentSettings(ctx: AppContext): Promise<SiteSettings> {
  return (await readSettings(ctx)).settings;
}

/** Applies a partial change (400 naming the field on a bad value); answers the whole settings. */
export async function changeSettings(ctx: AppContext, origin: Origin, patch: SettingsPatch): Promise<SiteSettings> {
  await inTransaction(ctx, (tx) => updateSettings(tx, patch, actorOf(origin)));
  return currentSettings(ctx);
}

/** The favicon's square PNGs, one per size (the image centred, transparent around it). */
async function faviconSizes(image: Buffer): Promise<Map<number, Buffer>> {
  const sizes = new Map<number, Buffer>();
  try {
    for (const size of FAVICON_SIZES) {
      // Lenient as browsers are (a bad checksum is read), but a cut file is refused.
      const png = await sharp()(image, { failOn: 'truncated' })
        .resize(size, size, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
        .png()
        .toBuffer();
      sizes.set(size, png);
    }
  } catch (error) {
    // Right magic bytes, unreadable body: the sender's file, not the server, is at fault.
    throw new ValidationError(settingsMessages.imageUnreadable, { details: [{ field: 'file', message: settingsMessages.imageUnreadable }], cause: error });
  }
  return sizes;
}

async function storeFiles(ctx: AppContext, kind: SettingsImage, image: UploadedImage): Promise<string | FaviconSet> {
  if (kind !== 'favicon') return (await storeImage(ctx, image, UPLOAD_FOLDER)).url;
  const set: FaviconSet = {};
  try {
    for (const [size, png] of await faviconSizes(image.buffer)) set[String(size)] = (await storeImage(ctx, { buffer: png, type: 'png' }, UPLOAD_FOLDER)).url;
  } catch (error) {
    await removeFiles(ctx, Object.values(set));
    throw error;
  }
  return set;
}

async function removeFiles(ctx: AppContext, urls: string[]): Promise<void> {
  for (const url of urls) {
    await removeStoredFile(ctx, url).catch((error: unknown) => ctx.logger.warn({ err: error, url }, 'settings: an old image could not be removed'));
  }
}

/** Stores the checked image as the site's logo, favicon or social image; the one it replaces is removed. */
export async function setImage(ctx: AppContext, origin: Origin, kind: SettingsImage, image: UploadedImage): Promise<SiteSettings> {
  const stored = await storeFiles(ctx, kind, image);
  let replaced: string[];
  try {
    replaced = await inTransaction(ctx, (tx) => setSettingsImage(tx, kind, stored, actorOf(origin)));
  } catch (error) {
    await removeFiles(ctx, typeof stored === 'string' ? [stored] : Object.values(stored));
    throw error;
  }
  await removeFiles(ctx, replaced);
  return currentSettings(ctx);
}

/** Removes the image (nothing to remove is no error). */
export async function removeImage(ctx: AppContext, origin: Origin, kind: SettingsImage): Promise<void> {
  const replaced = await inTransaction(ctx, (tx) => setSettingsImage(tx, kind, null, actorOf(origin)));
  await removeFiles(ctx, replaced);
}

/**
 * An ICO file holding PNG images (Windows Vista's format, read by every browser): a
 * 6-byte header, a 16-byte entry per image, then the images.
 */
function icoOf(pngs: Array<{ size: number; png: Buffer }>): Buffer {
  const header = Buffer.alloc(6 + 16 * pngs.length);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(pngs.length, 4);
  let offset = header.length;
  pngs.forEach(({ size, png }, index) => {
    const entry = 6 + 16 * index;
    header.writeUInt8(size >= 256 ? 0 : size, entry);
    header.writeUInt8(size >= 256 ? 0 : size, entry + 1);
    header.writeUInt8(0, entry + 2);
    header.writeUInt8(0, entry + 3);
    header.writeUInt16LE(1, entry + 4);
    header.writeUInt16LE(32, entry + 6);
    header.writeUInt32LE(png.length, entry + 8);
    header.writeUInt32LE(offset, entry + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...pngs.map(({ png }) => png)]);
}

/** /favicon.ico from the stored 16, 32 and 48 px PNGs. */
export async function faviconIco(ctx: AppContext, favicon: FaviconSet): Promise<Buffer> {
  const pngs: Array<{ size: number; png: Buffer }> = [];
  for (const size of [16, 32, 48]) {
    const name = favicon[String(size)] && storedName(favicon[String(size)]);
    const file = name ? await ctx.uploads.open(name) : undefined;
    if (!file) continue;
    const chunks: Buffer[] = [];
    for await (const chunk of file.read()) chunks.push(chunk as Buffer);
    pngs.push({ size, png: Buffer.concat(chunks) });
  }
  return icoOf(pngs);
}
