import type { NextFunction, Request, Response } from 'express';
import { logInSession } from '../../middleware/session.js';
import { createFirstAdmin, needsFirstRun } from '../../models/auth/registration.js';
import { answerRedirect } from './render.js';

/** While no account exists, every form POST of /auth is the first-run form. */
export async function onlyDuringFirstRun(_req: Request, _res: Response, next: NextFunction): Promise<void> {
  next((await needsFirstRun()) ? undefined : 'route');
}

// POST /auth, POST /auth/:segment while app_auth_users is empty
export async function handleFirstRun(req: Request, res: Response): Promise<void> {
  const user = await createFirstAdmin({ name: req.body.name, email: req.body.email, password: req.body.password });
  await logInSession(req, user);
  answerRedirect(req, res, '/admin', { user });
}
