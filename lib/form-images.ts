// A whole HTML form sent as multipart/form-data with images among its fields (the page
// editor without JavaScript: an image block's file goes with the form's save). Unlike
// parseImageUpload (one file, the request refused when it is wrong), a file refused for
// its size or type never stops the reading: every other field is read all the same, and
// the refusal is left for the handler, so the form comes back whole with a message.
// A form sent urlencoded (the same form with no file chosen by a script) passes as is.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type Multer from 'multer';
import { PayloadTooLargeError, ValidationError } from './errors.js';
import { lazyRequire } from './lazy-require.js';
import { uploadMessages } from './messages.js';
import { imageSize, MAX_IMAGE_PIXELS } from './image-size.js';
import { detectImageType, IMAGE_CONTENT_TYPES, type UploadedImage } from './uploads.js';

const multer = lazyRequire<typeof Multer>('multer');

/** One file of the form: the checked image, or why it was refused. */
type FormImage = { image: UploadedImage } | { refused: string };

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by parseFormImages(): the files of the form, by field name. */
      formImages?: Map<string, FormImage>;
    }
  }
}

export interface FormImagesOptions {
  /** The fields that may hold a file (others are refused). */
  field: RegExp;
  /** How many files one form may carry. */
  maxFiles: number;
  /** How many text fields, and how long one may be (characters of the largest field). */
  fields: number;
  fieldSize: number;
}

// A file is read up to the image limit and one byte more; what follows is drained, not
// kept. Past this, the request itself is refused (413): a form is not a file transfer.
// It grows with MEDIA_MAX_MB so that a form carrying two images at the limit still passes.
const REQUEST_FLOOR_BYTES = 32 * 1024 * 1024;

/** A file of the form, checked as the media library's uploads are: size (MEDIA_MAX_MB), type, pixels (from its header). */
async function checkedFile(buffer: Buffer, size: number, maxBytes: number, originalName: string): Promise<FormImage> {
  if (size > maxBytes) return { refused: uploadMessages.mediaTooLarge(maxBytes) };
  const type = detectImageType(buffer);
  if (!type) return { refused: uploadMessages.notAnImage };
  const pixels = await imageSize(buffer);
  if (pixels && pixels.width * pixels.height > MAX_IMAGE_PIXELS) return { refused: uploadMessages.tooManyPixels(pixels, MAX_IMAGE_PIXELS) };
  return { image: { buffer, type, contentType: IMAGE_CONTENT_TYPES[type], size, originalName, ...pixels } };
}

/** A multer storage engine keeping each file in memory up to `maxBytes` and checking it. */
function checkingStorage(maxBytes: number): Multer.StorageEngine {
  return {
    _handleFile(_req, file, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      file.stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= maxBytes + 1) chunks.push(chunk);
      });
      file.stream.on('error', callback);
      file.stream.on('end', () => {
        void checkedFile(Buffer.concat(chunks), size, maxBytes, file.originalname).then(
          (checked) => callback(null, { checked } as Partial<Express.Multer.File>),
          (error: unknown) => callback(error as Error),
        );
      });
    },
    _removeFile(_req, _file, callback) {
      callback(null);
    },
  };
}

/** `maxFileBytes`: the media library's limit (MEDIA_MAX_MB), which these files join. */
export function parseFormImages(options: FormImagesOptions, maxFileBytes: number): RequestHandler {
  const requestMaxBytes = Math.max(REQUEST_FLOOR_BYTES, 2 * maxFileBytes + 1024 * 1024);
  let parser: RequestHandler | undefined;
  const parse = () =>
    (parser ??= multer()({
      storage: checkingStorage(maxFileBytes),
      limits: { files: options.maxFiles, fields: options.fields, fieldSize: options.fieldSize, parts: options.fields + options.maxFiles, headerPairs: 100 },
      fileFilter: (_req, file, accept) => accept(null, options.field.test(file.fieldname)),
    }).any());
  return function parseFormImagesMiddleware(req: Request, res: Response, next: NextFunction): void {
    if (!req.is('multipart/form-data')) return next();
    if (Number(req.get('content-length') ?? 0) > requestMaxBytes) return next(new PayloadTooLargeError(uploadMessages.tooLarge));
    void parse()(req, res, (error?: unknown) => {
      if (error) return next(error instanceof multer().MulterError ? new ValidationError(uploadMessages.formRefused, { code: 'invalid_upload' }) : error);
      const images = new Map<string, FormImage>();
      for (const file of (req.files as Array<Express.Multer.File & { checked: FormImage }> | undefined) ?? []) images.set(file.fieldname, file.checked);
      req.formImages = images;
      next();
    });
  };
}
