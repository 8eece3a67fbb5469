// The route table: what is mounted where, in order. The session middleware is mounted
// only on the paths that use sessions; public pages and assets never pay for it.
import express, { type Express } from 'express';
import type { Config } from '../lib/config.js';
import { createSessionMiddleware } from '../middleware/session.js';
import { authRouter } from './auth.js';

export const SESSION_PATHS = ['/auth', '/admin', '/account', '/app/api'];

export function mountRoutes(app: Express, config: Config): void {
  app.use(SESSION_PATHS, ...createSessionMiddleware(config));
  app.use(express.urlencoded({ extended: false, limit: '100kb', parameterLimit: 200 }));
  app.use('/auth', authRouter());
}
