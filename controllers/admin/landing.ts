import type { Request, Response } from 'express';
import { navigationFor, renderAdmin } from './shell.js';

// GET /admin: the dashboard of the administration (the guard has run): one card per
// screen the user may open.
export async function showAdminLanding(req: Request, res: Response): Promise<void> {
  const screens = (await navigationFor(req)).filter((entry) => entry.href !== '/admin');
  await renderAdmin(req, res, 'admin/landing.njk', { pageTitle: 'Administration', screens });
}
