// Path parameters of the pages screens, and who is acting. (A re-render receives the
// raw path parameters: controllers/admin/shell.ts pathId reads ids either way.)
import Joi from 'joi';
import { idParam } from '../../lib/schema-primitives.js';
import type { Actor } from '../../models/audit.js';
import type { AnyCall } from '../../routes/define.js';

export const pageParams = Joi.object<{ id: number }>({ id: idParam.required() });

/** The logged-in user and the client address: the pages and media models record them. */
export function actorOf({ origin }: Pick<AnyCall, 'origin'>): Actor | null {
  return origin.userId === null ? null : { id: origin.userId, name: origin.name ?? '', ip: origin.ip };
}
