import type { Request, Response } from 'express';

// GET /admin: the landing page of the administration (the guard has run).
export function showAdminLanding(req: Request, res: Response): void {
  res.set('Cache-Control', 'no-store');
  res.render('admin/landing.njk', { pageTitle: 'Administration', user: req.user });
}
