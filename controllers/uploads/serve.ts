import { NotFoundError } from '../../lib/errors.js';
import type { UploadObject } from '../../lib/upload-storage.js';
import { storedName } from '../../lib/upload-names.js';
import { ifRangeHolds } from '../../middleware/if-range.js';
import type { Call } from '../../routes/define.js';
import { genericMessages } from '../../lib/messages.js';

// GET /uploads/:dir/:file — files written by storeImage(), read through ctx.uploads (on
// disk or in PostgreSQL: one answer for both, the same headers), with the Content-Type of
// their checked type and nosniff, so an upload is never interpreted as a page. A stored
// name is never reused (32 random hex digits; a new profile picture or media is a new
// name, and the old file is deleted), so a year and `immutable`, and a strong ETag (size
// and time: the bytes under a name never change), Last-Modified, 304 to a matching
// conditional request, and one byte range (206, 416 when unsatisfiable; several ranges
// get the whole file), under If-Range only with a strong validator (middleware/if-range.ts).
export async function serveUpload({ ctx, req, res, params }: Call<{ dir: string; file: string }>): Promise<void> {
  const name = storedName(`${params.dir}/${params.file}`);
  const upload = name === undefined ? undefined : await ctx.uploads.open(name);
  if (!upload) throw new NotFoundError(genericMessages.notFound);
  const etag = `"${upload.size.toString(16)}-${upload.modified.getTime().toString(16)}"`;
  res.set({
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'public, max-age=31536000, immutable',
    'Last-Modified': upload.modified.toUTCString(),
    ETag: etag,
    'Content-Type': upload.contentType,
  });
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  let range: { start: number; end: number } | undefined;
  if (req.headers.range && ifRangeHolds(req.get('If-Range'), { etag, lastModified: upload.modified, now: ctx.clock.now() })) {
    const ranges = req.range(upload.size, { combine: true });
    if (ranges === -1) {
      res.status(416).set('Content-Range', `bytes */${upload.size}`).end();
      return;
    }
    if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) {
      range = { start: ranges[0].start, end: ranges[0].end };
      res.status(206).set('Content-Range', `bytes ${range.start}-${range.end}/${upload.size}`);
    }
  }
  res.set('Content-Length', String(range ? range.end - range.start + 1 : upload.size));
  if (req.method === 'HEAD' || upload.size === 0) {
    res.end();
    return;
  }
  await send(ctx, res, upload, range, name!);
}

function send(ctx: Call['ctx'], res: Call['res'], upload: UploadObject, range: { start: number; end: number } | undefined, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = upload.read(range);
    stream.on('error', (error) => {
      if (!res.headersSent) return reject(error);
      ctx.logger.warn({ err: error, upload: name }, 'upload could not be read to the end');
      res.destroy();
      resolve();
    });
    res.on('close', () => {
      stream.destroy();
      resolve();
    });
    stream.pipe(res);
  });
}
