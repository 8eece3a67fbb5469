// The route table: what is mounted where, in order. The session middleware is mounted
// only on the paths that use sessions; public pages and assets never pay for it.
import express, { type Express, type RequestHandler } from 'express';
import type { Config } from '../lib/config.js';
import { createSessionMiddleware } from '../middleware/session.js';
import { accountRouter } from './account.js';
import { adminRouter } from './admin.js';
import { apiRouter } from './api/index.js';
import { authRouter } from './auth.js';
import { siteModules } from './modules.js';
import { uploadsRouter } from './uploads.js';

export const SESSION_PATHS = ['/auth', '/admin', '/account', '/app/api'];

export function mountRoutes(app: Express, config: Config): void {
  // Public JSON reads of modules (e.g. GET /app/api/pages) need no session: they skip
  // the session lookup like the public site does.
  const publicReads = new Set(siteModules.flatMap((module) => (module.publicApiReads ?? []).map((path) => `/app/api${path}`)));
  const sessionMiddleware = createSessionMiddleware(config);
  const skipOnPublicReads = (middleware: RequestHandler): RequestHandler => (req, res, next) =>
    (req.method === 'GET' || req.method === 'HEAD') && publicReads.has(req.originalUrl.split('?')[0]) ? next() : middleware(req, res, next);
  app.use(SESSION_PATHS, ...sessionMiddleware.map(skipOnPublicReads));
  app.use(['/auth', '/admin', '/account'], express.urlencoded({ extended: false, limit: '100kb', parameterLimit: 500 }));
  app.use('/auth', authRouter(config));
  const api = apiRouter(config);
  for (const module of siteModules) module.registerApi(api);
  app.use('/app/api', api);
  const admin = adminRouter(config);
  for (const module of siteModules) module.registerAdmin?.(admin);
  app.use('/admin', admin);
  app.use('/account', accountRouter(config));
  // Uploaded files (pictures, page media) are public and need no session.
  app.use('/uploads', uploadsRouter());
  // Public site routes come last: a module's catch-all must not shadow the rest.
  for (const module of siteModules) module.registerSite?.(app);
}
