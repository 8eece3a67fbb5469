import type { Request, Response } from 'express';
import { logOutSession } from '../../middleware/session.js';
import { answerRedirect } from './render.js';

// POST /auth/logout: the session is removed from storage and its cookie cleared.
export async function handleLogout(req: Request, res: Response): Promise<void> {
  await logOutSession(req, res);
  answerRedirect(req, res, '/auth/login?done=logout');
}
