// joi at the edge: path params, query and body are validated (and converted) before a
// handler sees them (routes/define.ts runs it for every row), so nothing unvalidated
// reaches a model (no mass assignment).
import Joi from 'joi';
import { ValidationError, type ErrorDetail } from './errors.js';
import { joiMessages, validationMessages } from './messages.js';

// joi wraps labels in « » without the no-break spaces French puts inside (its wrap takes two
// characters at most): they are added here, once for every message, custom ones included.
function frenchGuillemets(message: string): string {
  return message.replace(/«[\s\u00a0\u202f]*/g, '«\u00a0').replace(/[\s\u00a0\u202f]*»/g, '\u00a0»');
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
