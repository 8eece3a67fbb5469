import type { Request } from 'express';
import { UnauthenticatedError } from '../../lib/errors.js';
import type { Acting } from '../../services/users.js';
import { authMessagesForGuards } from '../../lib/messages.js';

/** The logged-in caller as the models and services see it (the row's guard has run). */
export function callerOf(req: Request): Acting & { sid: string } {
  if (!req.user) throw new UnauthenticatedError(authMessagesForGuards.loginRequired);
  return { id: req.user.id, permissions: req.user.permissions, name: req.user.name, ip: req.ip ?? null, sid: req.sessionID };
}

/** `{items, total, limit, offset}` (DESIGN §3). */
export function listBody<T>(items: T[], total: number, limit: number, offset: number) {
  return { items, total, limit, offset };
}

/** A whole list in the list shape: `limit` = `total`, `offset` = 0. */
export function wholeList<T>(items: T[]) {
  return listBody(items, items.length, items.length, 0);
}
