// The HTML surface of /admin and /account: forms ignore fields they do not know; a
// POST passes the cross-site refusal and the CSRF token check before the form is
// "reached"; from there a refusal by the rules re-renders the row's page
// (routes/form-failure.ts), while a guard or CSRF refusal goes to the error page.
// The routers read the session and run their guard for every URL before any row, so
// the surface reads nothing more.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../lib/context.js';
import { parseFormImages } from '../lib/form-images.js';
import { uploadParserFor, type UploadLimit } from '../lib/uploads.js';
import { createCrossSiteRefusal } from '../middleware/cross-site.js';
import type { Csrf } from '../middleware/csrf.js';
import type { Surface } from './define.js';
import { formFailures, formReached } from './form-failure.js';

/**
 * A multipart form: its token exists only once the upload is parsed, so the token is
 * checked after parsing; an upload refused for its size or type is the form's
 * failure (its page shows the message), a missing or wrong token is not.
 */
function parseUploadOfForm(ctx: AppContext, upload: { field: string; limit?: UploadLimit }): RequestHandler {
  const parse = uploadParserFor(ctx, upload);
  return function parseFormUpload(req: Request, res: Response, next: NextFunction): void {
    parse(req, res, (error?: unknown) => {
      if (error) res.locals.formReached = true;
      next(error);
    });
  };
}

export function adminSurface(ctx: AppContext, csrf: Csrf): Surface {
  const refuseCrossSite = createCrossSiteRefusal(ctx);
  return {
    strict: false,
    session: [],
    // Each row parses its own form (a row may declare a larger one: bodyLimit).
    forms: { limit: '100kb', fields: 500 },
    prepare(row) {
      if (row.method === 'get') return [];
      const upload = row.upload ? [parseUploadOfForm(ctx, row.upload)] : row.formImages ? [parseFormImages(row.formImages, ctx.config.mediaMaxBytes)] : [];
      return [refuseCrossSite, ...upload, csrf.verifyToken, formReached];
    },
    failure: formFailures(ctx, csrf),
  };
}
