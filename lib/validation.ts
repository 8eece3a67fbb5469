// joi at the edge: path params, query and body are validated (and converted) before a
// handler sees them (routes/define.ts runs it for every row), so nothing unvalidated
// reaches a model (no mass assignment).
import Joi from 'joi';
import { ValidationError, type ErrorDetail } from './errors.js';
import { joiMessages, textMessages, validationMessages } from './messages.js';

// joi wraps labels in « » without the no-break spaces French puts inside (its wrap takes two
// characters at most): they are added here, once for every message, custom ones included.
function frenchGuillemets(message: string): string {
  return message.replace(/«[\s\u00a0\u202f]*/g, '«\u00a0').replace(/[\s\u00a0\u202f]*»/g, '\u00a0»');
}

// Characters a line of text a person typed (a name, a label, a title) has no use for:
// C0 controls (tab, CR, LF, ESC of terminal escapes…), DEL and the C1 controls, the
// line and paragraph separators, and the bidirectional embeddings, overrides and
// isolates (U+202A–U+202E, U+2066–U+2069), which make a name read backwards in a list,
// a log line or a mail subject. The marks U+200E, U+200F and U+061C stay: right-to-left
// names need them, and they reorder nothing around them.
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const NOT_SINGLE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * The one rule of every short single-line text a person types (display names, role
 * labels and descriptions, page titles): no control character, line break or
 * bidirectional override, refused at the edge with a 400 naming the field. Leading and
 * trailing whitespace is trimmed before (when the schema trims), so a stray final
 * newline is dropped, not refused.
 */
export function singleLine(schema: Joi.StringSchema): Joi.StringSchema {
  return schema
    .custom((value: string, helpers) => (NOT_SINGLE_LINE.test(value) ? helpers.error('string.singleLine') : value))
    .messages({ 'string.singleLine': textMessages.notSingleLine });
}

function joiDetails(error: Joi.ValidationError): ErrorDetail[] {
  return error.details.map((detail) => ({ field: detail.path.join('.') || String(detail.context?.key ?? ''), message: frenchGuillemets(detail.message) }));
}

// Compiled once: joi parses message templates and merges preferences on every call
// that passes them as options, which was a tenth of a public read's time.
const messageTemplates: Joi.LanguageMessages = Object.fromEntries(Object.entries(joiMessages).map(([code, text]) => [code, Joi.expression(text) as string]));

function preferences(allowUnknown: boolean): Joi.ValidationOptions {
  return {
    abortEarly: false,
    allowUnknown,
    stripUnknown: allowUnknown ? { objects: true } : false,
    convert: true,
    messages: messageTemplates,
    errors: { wrap: { label: '«»' } },
  };
}

/**
 * A schema with the validation preferences built in: prepared once (when a route is
 * mounted), validated many times. `allowUnknown` is for HTML forms, which ignore fields
 * they do not know; JSON bodies refuse them.
 */
export function prepareSchema(schema: Joi.Schema, options: { allowUnknown?: boolean } = {}): Joi.Schema {
  return schema.prefs(preferences(options.allowUnknown ?? false));
}

/**
 * Validates a value against a prepared schema, returning the converted value or throwing
 * a ValidationError whose details name each field.
 */
export function validatePrepared<T>(schema: Joi.Schema, value: unknown): T {
  const result = schema.validate(value);
  if (result.error) {
    throw new ValidationError(validationMessages.invalid, { details: joiDetails(result.error) });
  }
  return result.value as T;
}

/** Validates a value against a schema built for this one call (see validatePrepared). */
export function validateValue<T>(schema: Joi.Schema, value: unknown, options: { allowUnknown?: boolean } = {}): T {
  return validatePrepared<T>(prepareSchema(schema, options), value);
}
