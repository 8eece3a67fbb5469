import path from 'node:path';
import { NotFoundError } from '../../lib/errors.js';
import { SERVED_CONTENT_TYPES, resolveStoredFile } from '../../lib/uploads.js';
import { genericMessages } from '../../middleware/error-handler.js';
import type { Call } from '../../routes/define.js';

/** `Cache-Control: public, max-age=31536000, immutable`. */
const UPLOAD_MAX_AGE_MS = 31_536_000 * 1000;

// GET /uploads/:dir/:file — files written by storeImage(), with the Content-Type of
// their checked type and nosniff, so an upload is never interpreted as a page. A stored
// name is never reused (32 random hex digits, written with `wx`; a new profile picture or
// media is a new name, and the old file is deleted), so a year and `immutable`.
export function serveUpload({ ctx, res, params }: Call<{ dir: string; file: string }>): Promise<void> {
  const file = resolveStoredFile(ctx, `${params.dir}/${params.file}`);
  if (!file) throw new NotFoundError(genericMessages.notFound);
  res.set('X-Content-Type-Options', 'nosniff');
  res.set('Content-Security-Policy', "default-src 'none'; sandbox");
  return new Promise((resolve, reject) => {
    res.sendFile(
      file,
      { maxAge: UPLOAD_MAX_AGE_MS, immutable: true, dotfiles: 'deny', headers: { 'Content-Type': SERVED_CONTENT_TYPES[path.extname(file)] } },
      (error?: Error & { status?: number; code?: string }) => {
        if (!error) return resolve();
        if (error.status === 404 || error.code === 'ENOENT') return reject(new NotFoundError(genericMessages.notFound));
        reject(error);
      },
    );
  });
}
