// The joi primitives every area builds its schemas from, so that an id, an address,
// a name or a page size means the same thing on every route. Every string is built
// from text(): PostgreSQL refuses U+0000 and unpaired UTF-16 surrogates, so they are
// refused here, at the edge, with a 400 naming the field.
import Joi from 'joi';
import { textMessages } from './messages.js';
import { singleLine } from './validation.js';

export const MAX_ID = 2_147_483_647;
const MAX_PAGE_SIZE = 200;
const DEFAULT_PAGE_SIZE = 50;

// A lone surrogate: a high one not followed by a low one, or a low one not after a high one.
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what PostgreSQL refuses
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// Built once: joi checks every set of messages against its preferences schema, a cost
// each of the site's string fields paid at every start. A joi schema never changes (each
// method returns a new one), so every caller can start from this one.
const TEXT = Joi.string()
  .custom((value: string, helpers) => (UNSTORABLE.test(value) ? helpers.error('string.unstorable') : value))
  .messages({
    'string.unstorable': textMessages.unstorable,
  });

/** A string that PostgreSQL can store. */
export function text(): Joi.StringSchema {
  return TEXT;
}

/** Whether a value (any depth of objects and arrays) holds a string PostgreSQL cannot store. */
export function holdsUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.some(holdsUnstorableText);
  if (value && typeof value === 'object') return Object.entries(value).some(([key, item]) => UNSTORABLE.test(key) || holdsUnstorableText(item));
  return false;
}

/** A path id: plain decimal digits (`1e3`, `+7`, `007`, `0x10` refused), converted to a number. */
export const idParam = Joi.string()
  .pattern(/^[1-9][0-9]{0,9}$/)
  .custom((value: string, helpers) => (Number(value) > MAX_ID ? helpers.error('number.max', { limit: MAX_ID }) : Number(value)));

/** An id in a JSON body or a form field. */
export const id = Joi.number().integer().min(1).max(MAX_ID);

export const email = text()
  .trim()
  .lowercase()
  .max(254)
  .email({ tlds: { allow: false } });
// A display name: one line, nothing that could rewrite a log line or reverse a list (lib/validation.ts).
export const personName = singleLine(text().trim().min(1).max(100));
// The policy (8 characters, 72 bytes) is checked by the model with its own message.
export const password = text().min(1).max(1000);
// Letters, digits, space, `_`, `.`, `-`: what the role screen has always allowed.
const ROLE_NAME_PATTERN = /^[\p{L}\p{N}_ .-]+$/u;
export const roleName = text().trim().min(1).max(64).pattern(ROLE_NAME_PATTERN);
// What the screens show for a role («Administrateur»): any text, unique whatever its case.
export const roleLabel = singleLine(text().trim().min(1).max(100));
/** A role's description: one line of at most 500 characters, empty allowed. */
export const roleDescription = singleLine(text().trim().max(500)).allow('');
export const permissionKey = text().max(64);
export const sessionId = Joi.string().hex().length(32);
export const token = Joi.string()
  .max(100)
  .pattern(/^[A-Za-z0-9_-]+$/);

/** `limit` and `offset` of a list, with the API's bounds. */
export function pagination(maxLimit = MAX_PAGE_SIZE, defaultLimit = DEFAULT_PAGE_SIZE) {
  return {
    limit: Joi.number().integer().min(1).max(maxLimit).default(defaultLimit),
    offset: Joi.number().integer().min(0).max(1_000_000_000).default(0),
  };
}

/** `{ id }` path params. */
export const idParams = Joi.object<{ id: number }>({ id: idParam.required() });
