// What is mounted where, in order. Each area mounts its route rows on its own surface
// and ends with its own 404: unknown /app/api paths answer JSON, unknown /admin and
// /account paths the admin error page (behind their guard); only GET/HEAD outside the
// reserved prefixes reach the public site.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from '../lib/context.js';
import { createSessionMiddleware } from '../middleware/session.js';
import { accountRouter } from './account.js';
import { adminRouter } from './admin.js';
import { apiRouter } from './api/index.js';
import { authRouter } from './auth.js';
import { siteRouter } from './site.js';
import { uploadsRouter } from './uploads.js';

// Every answer that may depend on the session (authenticated JSON, /admin, /account,
// the session list with its addresses) must never be stored by a cache.
function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.set('Cache-Control', 'no-store');
  next();
}

export function mountAreas(app: Express, ctx: AppContext): void {
  const session = [noStore, ...createSessionMiddleware(ctx)];
  const forms = express.urlencoded({ extended: false, limit: '100kb', parameterLimit: 500 });
  app.use('/auth', forms, authRouter(ctx, session));
  app.use('/app/api', apiRouter(ctx, session));
  // Each /admin row parses its own form, by the surface's limits or its own (bodyLimit).
  app.use('/admin', adminRouter(ctx, session));
  app.use('/account', forms, accountRouter(ctx, session));
  // Uploaded files (pictures, the modules' media) are public and need no session.
  app.use('/uploads', uploadsRouter(ctx));
  // Public site routes come last: a module's catch-all must not shadow the rest.
  app.use(siteRouter(ctx));
}
