// Image uploads, shared by the profile picture and the pages module's media library.
// multer keeps the file in memory (2 MB at most for a profile picture, MEDIA_MAX_MB for
// the media library), so a refused upload is never stored; an image over 50 megapixels
// (read from its header, lib/image-size.ts) is refused before anything decodes it;
// the type is read from the file's first bytes, never from its name or the client's
// Content-Type; accepted files are stored with a generated name through ctx.uploads
// (lib/upload-storage.ts: under UPLOAD_DIR or in PostgreSQL, per UPLOAD_STORAGE) and
// served by GET /uploads/* (routes/uploads.ts).
import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type Multer from 'multer';
import { lazyRequire } from './lazy-require.js';

// Loaded by the first upload, not at every start.
const multer = lazyRequire<typeof Multer>('multer');
import type { AppContext } from './context.js';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from './errors.js';
import { imageSize, MAX_IMAGE_PIXELS } from './image-size.js';
import { UPLOAD_FOLDER, UPLOADS_URL_PREFIX, storedName } from './upload-names.js';
import { uploadMessages } from './messages.js';

export { UPLOADS_URL_PREFIX } from './upload-names.js';

const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

export type ImageType = 'png' | 'jpeg' | 'webp';

export const IMAGE_CONTENT_TYPES: Record<ImageType, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};

const EXTENSIONS: Record<ImageType, string> = { png: 'png', jpeg: 'jpg', webp: 'webp' };

/** The image type given by the magic bytes, or undefined when it is none of the three. */
export function detectImageType(buffer: Buffer): ImageType | undefined {
  if (buffer.length >= 8 && buffer.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (buffer.length >= 3 && buffer[0] === 0xff && buffer[1] === 0xd8 && buffer[2] === 0xff) return 'jpeg';
  if (buffer.length >= 12 && buffer.toString('latin1', 0, 4) === 'RIFF' && buffer.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return undefined;
}

export interface UploadedImage {
  buffer: Buffer;
  type: ImageType;
  contentType: string;
  size: number;
  originalName: string;
  /** Upright pixels from the header; absent when they could not be read (no sharp, an unreadable header). */
  width?: number;
  height?: number;
}

/** Which limits an upload row applies: the profile picture's (2 MB, 413) or the media library's (MEDIA_MAX_MB, 400 naming it). */
export type UploadLimit = 'picture' | 'media';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by parseImageUpload(): the checked image. */
      image?: UploadedImage;
    }
  }
}

function multerError(error: unknown, mediaMaxBytes: number | undefined): unknown {
  if (!(error instanceof multer().MulterError)) return error;
  switch (error.code) {
    case 'LIMIT_FILE_SIZE':
      if (mediaMaxBytes !== undefined) {
        const message = uploadMessages.mediaTooLarge(mediaMaxBytes);
        return new ValidationError(message, { code: 'image_too_large', details: [{ field: error.field ?? 'file', message }] });
      }
      return new PayloadTooLargeError(uploadMessages.tooLarge);
    case 'LIMIT_PART_COUNT':
    case 'LIMIT_FIELD_VALUE':
      return new PayloadTooLargeError(uploadMessages.tooLarge);
    default:
      return new ValidationError(uploadMessages.oneFileOnly, { code: 'invalid_upload' });
  }
}

/** The checked image of a multipart file, or the refusal: not an image (415), too many pixels (400). */
async function checkedImage(file: Express.Multer.File, field: string): Promise<UploadedImage> {
  const type = detectImageType(file.buffer);
  if (!type) throw new UnsupportedMediaTypeError(uploadMessages.notAnImage);
  const size = await imageSize(file.buffer);
  if (size && size.width * size.height > MAX_IMAGE_PIXELS) {
    const message = uploadMessages.tooManyPixels(size, MAX_IMAGE_PIXELS);
    throw new ValidationError(message, { code: 'image_too_many_pixels', details: [{ field, message }] });
  }
  return { buffer: file.buffer, type, contentType: IMAGE_CONTENT_TYPES[type], size: file.size, originalName: file.originalname, ...size };
}

/**
 * Middleware: accepts one multipart file in `field` (PNG/JPEG/WebP by magic bytes, 50
 * megapixels at most) and leaves it in req.image. A profile picture over 2 MB → 413; a
 * media over `mediaMaxBytes` (MEDIA_MAX_MB) → 400 naming the limit, as for the pixels;
 * wrong type or not multipart → 415, no file or another field → 400. Nothing is
 * written to disk here.
 */
function parseImageUpload(field: string, options: { mediaMaxBytes?: number } = {}): RequestHandler {
  const { mediaMaxBytes } = options;
  // Made by the first upload of this route (multer loads then).
  let parser: RequestHandler | undefined;
  const parse = () =>
    (parser ??= multer()({
      storage: multer().memoryStorage(),
      limits: { fileSize: mediaMaxBytes ?? MAX_IMAGE_BYTES, files: 1, fields: 10, fieldSize: 10_000, parts: 12, headerPairs: 100 },
    }).single(field));
  return function parseImageUploadMiddleware(req: Request, res: Response, next: NextFunction): void {
    if (!req.is('multipart/form-data')) return next(new UnsupportedMediaTypeError(uploadMessages.notMultipart));
    void parse()(req, res, (error?: unknown) => {
      if (error) return next(multerError(error, mediaMaxBytes));
      const file = req.file;
      if (!file)
        return next(new ValidationError(uploadMessages.missingFile, { code: 'missing_file', details: [{ field, message: uploadMessages.missingFile }] }));
      checkedImage(file, field).then(
        (image) => {
          req.image = image;
          next();
        },
        (refusal: unknown) => next(refusal),
      );
    });
  };
}

/** The parser of an upload row, with the limits its `limit` names. */
export function uploadParserFor(ctx: AppContext, upload: { field: string; limit?: UploadLimit }): RequestHandler {
  return parseImageUpload(upload.field, upload.limit === 'media' ? { mediaMaxBytes: ctx.config.mediaMaxBytes } : {});
}

export interface StoredFile {
  /** The stored name, e.g. `avatars/3f…9a.png`. */
  path: string;
  /** Public URL, e.g. `/uploads/avatars/3f…9a.png`. */
  url: string;
  contentType: string;
  size: number;
}

/**
 * Stores the image in the configured storage under `subdir` with a random name; returns
 * where it went. With database storage it joins ctx's transaction, if any.
 */
export async function storeImage(ctx: AppContext, image: Pick<UploadedImage, 'buffer' | 'type'>, subdir: string): Promise<StoredFile> {
  if (!UPLOAD_FOLDER.test(subdir)) throw new Error(`invalid upload subdirectory: ${subdir}`);
  const name = `${subdir}/${randomBytes(16).toString('hex')}.${EXTENSIONS[image.type]}`;
  const contentType = IMAGE_CONTENT_TYPES[image.type];
  await ctx.uploads.put(name, image.buffer, contentType, ctx.db);
  return { path: name, url: UPLOADS_URL_PREFIX + name, contentType, size: image.buffer.length };
}

/**
 * Where a stored path or URL would be on disk (UPLOAD_DIR), or undefined when it does not
 * look like something storeImage() wrote (so `..`, absolute paths and dotfiles never resolve).
 */
export function resolveStoredFile(ctx: AppContext, pathOrUrl: string): string | undefined {
  const name = storedName(pathOrUrl);
  return name === undefined ? undefined : ctx.uploads.disk.fileOf(name);
}

/**
 * Deletes a stored file from both storages; a missing file or a foreign path is ignored.
 * With ctx in a transaction, the database copy goes with it.
 */
export async function removeStoredFile(ctx: AppContext, pathOrUrl: string | null | undefined): Promise<void> {
  if (!pathOrUrl) return;
  const name = storedName(pathOrUrl);
  if (name) await ctx.uploads.remove(name, ctx.db);
}
