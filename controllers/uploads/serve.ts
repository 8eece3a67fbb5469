import path from 'node:path';
import { NotFoundError } from '../../lib/errors.js';
import { SERVED_CONTENT_TYPES, resolveStoredFile } from '../../lib/uploads.js';
import { genericMessages } from '../../middleware/error-handler.js';
import type { Call } from '../../routes/define.js';

// GET /uploads/:dir/:file — files written by storeImage(), with the Content-Type of
// their checked type and nosniff, so an upload is never interpreted as a page.
export function serveUpload({ ctx, res, params }: Call<{ dir: string; file: string }>): Promise<void> {
  const file = resolveStoredFile(ctx, `${params.dir}/${params.file}`);
  if (!file) throw new NotFoundError(genericMessages.notFound);
  res.set('X-Content-Type-Options', 'nosniff');
  res.set('Content-Security-Policy', "default-src 'none'; sandbox");
  return new Promise((resolve, reject) => {
    res.sendFile(
      file,
      { maxAge: '7d', immutable: true, dotfiles: 'deny', headers: { 'Content-Type': SERVED_CONTENT_TYPES[path.extname(file)] } },
      (error?: Error & { status?: number; code?: string }) => {
        if (!error) return resolve();
        if (error.status === 404 || error.code === 'ENOENT') return reject(new NotFoundError(genericMessages.notFound));
        reject(error);
      },
    );
  });
}
