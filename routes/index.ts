// The route table: what is mounted where, in order. The session middleware is mounted
// only on the paths that use sessions; public pages and assets never pay for it.
import express, { type Express } from 'express';
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
  app.use(SESSION_PATHS, ...createSessionMiddleware(config));
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
