// Path parameters of the pages screens, and who is acting. (A re-render receives the
// raw path parameters: controllers/admin/shell.ts pathId reads ids either way.)
import Joi from 'joi';
import { idParam } from '../../lib/schema-primitives.js';
import type { Actor } from '../../models/audit.js';
import type { AnyCall } from '../../routes/define.js';

export const pageParams = Joi.object<{ id: number }>({ id: idParam.required() });

/** The logged-in user and the client address: the pages and media models record them. */
export function actorOf(call: AnyCall): Actor | null {
  const user = call.req.user;
  return user ? { id: user.id, name: user.name, ip: call.req.ip ?? null } : null;
}
