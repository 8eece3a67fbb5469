import type { Request } from 'express';
import { UnauthenticatedError } from '../../lib/errors.js';
import type { Caller } from '../../models/auth/roles.js';
import { authMessagesForGuards } from '../../middleware/require-auth.js';

/** The logged-in caller as the models see it (the route's guard has already run). */
export function callerOf(req: Request): Caller & { sid: string } {
  if (!req.user) throw new UnauthenticatedError(authMessagesForGuards.loginRequired);
  return { id: req.user.id, permissions: req.user.permissions, sid: req.sessionID };
}

/** `{items, total, limit, offset}` (DESIGN §3). */
export function listBody<T>(items: T[], total: number, limit: number, offset: number) {
  return { items, total, limit, offset };
}
