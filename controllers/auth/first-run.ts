import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../../lib/context.js';
import type { Call } from '../../routes/define.js';
import { logInSession } from '../../middleware/session.js';
import { createFirstAdmin, needsFirstRun } from '../../models/auth/registration.js';
import { answerRedirect } from './render.js';
import type { AccountBody } from './schemas.js';

/** While no account exists, every form POST of /auth is the first-run form; after, the row passes. */
export function createFirstRunGate(ctx: AppContext): RequestHandler {
  return async function onlyDuringFirstRun(_req: Request, _res: Response, next: NextFunction): Promise<void> {
    next((await needsFirstRun(ctx)) ? undefined : 'route');
  };
}

// POST /auth, POST /auth/:segment while app_auth_users is empty
export async function handleFirstRun({ ctx, req, res, body }: Call<{ segment?: string }, Record<string, never>, AccountBody>): Promise<void> {
  const user = await createFirstAdmin(ctx, { name: body.name, email: body.email, password: body.password });
  await logInSession(req, user);
  answerRedirect(req, res, '/admin', { user });
}
