import type { Request, Response } from 'express';
import { needsFirstRun } from '../../models/auth/registration.js';

// GET /auth, GET /auth/:segment
export async function showLogin(req: Request, res: Response): Promise<void> {
  const firstRun = await needsFirstRun();
  res.set('Cache-Control', 'no-store');
  res.render('auth/login.njk', { pageTitle: firstRun ? 'Première configuration' : 'Connexion', firstRun });
}
