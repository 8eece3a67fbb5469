// The public site: the modules' site rows, mounted after every other area, each
// module's specific rows before any catch-all. Its rows are public reads only (no session, GET/HEAD): any other method,
// or a path no row takes, falls through to the application's 404.
import { Router } from 'express';
import type { AppContext } from '../lib/context.js';
import { mountRoutes, type Surface } from './define.js';

const publicSurface: Surface = {
  strict: false,
  session: [],
  prepare: () => [],
  failure: () => [],
};

export function siteRouter(ctx: AppContext): Router {
  const rows = ctx.site.siteRoutes;
  for (const row of rows) {
    if (row.method !== 'get' || row.access !== 'public' || row.form || row.upload || row.limit) {
      const paths = Array.isArray(row.path) ? row.path.join(', ') : row.path;
      throw new Error(`site route ${row.method.toUpperCase()} ${paths} must be a public GET (the site takes no writes)`);
    }
  }
  // A catch-all (`/*path`) takes whatever reaches it: it goes after every module's
  // specific rows, so a module registered after the one that brings it is reached too.
  const catchAll = (row: (typeof rows)[number]) => (Array.isArray(row.path) ? row.path : [row.path]).some((path) => path.includes('*'));
  const router = Router();
  mountRoutes(router, ctx, publicSurface, [...rows.filter((row) => !catchAll(row)), ...rows.filter(catchAll)]);
  return router;
}
