// The session of a public row that finds, once it has looked at what was asked, that
// the answer depends on the reader (a page for members): the same steps the guarded
// rows run before their handler (createSessionMiddleware), run here on demand and made
// once per application. Every other public answer reads no session at all, and a
// request without any cookie reads nothing here either.
import type { Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../lib/context.js';
import type { SessionUser } from '../models/auth/users.js';
import { createSessionMiddleware } from './session.js';

function runStep(step: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void step(req, res, (error?: unknown) => (error ? reject(error instanceof Error ? error : new Error('session step failed', { cause: error })) : resolve()));
  });
}

/** The signed-in user of this request (its session read now), or undefined. */
export async function sessionUserOf(ctx: AppContext, req: Request, res: Response): Promise<SessionUser | undefined> {
  if (req.user) return req.user;
  if (!req.headers.cookie) return undefined;
  ctx.memo.sessionOnDemand ??= createSessionMiddleware(ctx);
  for (const step of ctx.memo.sessionOnDemand) await runStep(step, req, res);
  return req.user;
}
