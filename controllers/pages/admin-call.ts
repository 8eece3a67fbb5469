// Path parameters of the pages screens, and who is acting. (A re-render receives the
// raw path parameters: controllers/admin/shell.ts pathId reads ids either way.)
import Joi from 'joi';
import { idParam } from '../../lib/schema-primitives.js';
import type { AnyCall } from '../../routes/define.js';

/** A block's position in the page: 0…499, plain digits. */
export const blockIndexParam = Joi.string()
  .pattern(/^(0|[1-9][0-9]{0,2})$/)
  .custom((value: string) => Number(value));

export const pageParams = Joi.object<{ id: number }>({ id: idParam.required() });
export const blockParams = Joi.object<{ id: number; index: number }>({ id: idParam.required(), index: blockIndexParam.required() });

export function actorOf(call: AnyCall): number | null {
  return call.req.user?.id ?? null;
}
