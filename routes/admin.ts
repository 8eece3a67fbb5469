// The /admin area. Every URL under it, known or not, passes the guard first: without
// a session → the login page (the first-run form while no account exists), with a
// session lacking admin.access → 403. Modules add their screens behind it
// (registerAdmin); forms here use the same CSRF token as /auth.
import { Router } from 'express';
import type { Config } from '../lib/config.js';
import { showAdminLanding } from '../controllers/admin/landing.js';
import { provideCsrfToken } from '../middleware/csrf.js';
import { requirePermission } from '../middleware/require-auth.js';

export function adminRouter(_config: Config): Router {
  const router = Router();
  router.use(requirePermission(), provideCsrfToken);
  router.get('/', showAdminLanding);
  return router;
}
