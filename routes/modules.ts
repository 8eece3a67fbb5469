// Modules of the site (DESIGN §2): each declares its permission section in a manifest
// (seeded by its own migration) and mounts its routers through the hooks below.
import type { Express, Router } from 'express';
import type { PermissionSectionSeed } from '../models/auth/schema.js';
import { pagesModule } from './pages/index.js';

export interface SiteModule {
  manifest: { name: string; permissionSections: PermissionSectionSeed[] };
  /** GET paths under /app/api that anyone may read: served without the session lookup. */
  publicApiReads?: string[];
  /** JSON routes under /app/api (the router already parses JSON and checks CSRF). */
  registerApi(api: Router): void;
  /** Server-rendered screens under /admin (behind the admin guard). */
  registerAdmin?(admin: Router): void;
  /** Public routes, mounted after everything else (catch-alls go here). */
  registerSite?(app: Express): void;
}

export const siteModules: SiteModule[] = [pagesModule];
