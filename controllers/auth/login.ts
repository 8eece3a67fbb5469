import type { Request, Response } from 'express';
import { logInSession } from '../../middleware/session.js';
import { login } from '../../models/auth/login.js';
import { findSessionUser } from '../../models/auth/users.js';
import { answerRedirect, safeNextPath } from './render.js';

// POST /auth/login (and POST /auth or an unknown segment, whose page is login)
export async function handleLogin(req: Request, res: Response): Promise<void> {
  const user = await login(req.body.email, req.body.password);
  // Regenerates the session id: an id planted before login is worthless (fixation).
  await logInSession(req, user);
  const sessionUser = await findSessionUser(user.id);
  const fallback = sessionUser?.permissions.includes('admin.access') ? '/admin' : '/account';
  answerRedirect(req, res, safeNextPath(req.body.next) ?? fallback, { user });
}
