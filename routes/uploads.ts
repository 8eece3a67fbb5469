// Uploaded files (profile pictures, page media): public, read-only, no session. The
// stored name decides what is served (lib/uploads.ts resolveStoredFile); anything else
// under /uploads is a 404.
import { Router, type NextFunction, type Request, type Response } from 'express';
import Joi from 'joi';
import { serveUpload } from '../controllers/uploads/serve.js';
import type { AppContext } from '../lib/context.js';
import { text } from '../lib/schema-primitives.js';
import { notFound } from '../middleware/error-handler.js';
import { mountRoutes, route, type Surface } from './define.js';

const fileParams = Joi.object<{ dir: string; file: string }>({ dir: text().max(100).required(), file: text().max(200).required() });

export const uploadRoutes = [route({ method: 'get', path: '/:dir/:file', access: 'public', params: fileParams, handler: serveUpload })];

export function uploadsRouter(ctx: AppContext): Router {
  const router = Router();
  // Static files log at debug level, as the assets do (app.ts).
  router.use((_req: Request, res: Response, next: NextFunction) => {
    res.locals.quietLog = true;
    next();
  });
  const surface: Surface = { strict: false, session: [], prepare: () => [], failure: () => [] };
  mountRoutes(router, ctx, surface, uploadRoutes);
  router.use(notFound);
  return router;
}
