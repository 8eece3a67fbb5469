// joi at the edge: path params, query and body are validated (and converted) before a
// controller sees them, so nothing unvalidated reaches a model (no mass assignment).
import type { NextFunction, Request, Response } from 'express';
import Joi from 'joi';
import { ValidationError, type ErrorDetail } from '../lib/errors.js';

export interface RequestSchemas {
  params?: Joi.Schema;
  query?: Joi.Schema;
  body?: Joi.Schema;
}

export const validationMessages = {
  invalid: 'Certaines valeurs envoyées ne sont pas valides.',
};

// French messages for the common rules, so API clients and forms can show them as is.
export const joiMessages: Joi.LanguageMessages = {
  'any.required': '{{#label}} est obligatoire.',
  'string.empty': '{{#label}} ne peut pas être vide.',
  'string.base': '{{#label}} doit être une chaîne de caractères.',
  'string.email': '{{#label}} doit être une adresse de courriel valide.',
  'string.max': '{{#label}} ne doit pas dépasser {{#limit}} caractères.',
  'string.min': '{{#label}} doit contenir au moins {{#limit}} caractères.',
  'string.pattern.base': '{{#label}} a un format invalide.',
  'number.base': '{{#label}} doit être un nombre.',
  'number.integer': '{{#label}} doit être un nombre entier.',
  'number.min': '{{#label}} doit être supérieur ou égal à {{#limit}}.',
  'number.max': '{{#label}} doit être inférieur ou égal à {{#limit}}.',
  'boolean.base': '{{#label}} doit valoir true ou false.',
  'object.unknown': '{{#label}} n’est pas un champ accepté.',
  'object.base': '{{#label}} doit être un objet.',
  'array.base': '{{#label}} doit être une liste.',
  'any.only': '{{#label}} doit valoir : {{#valids}}.',
  'date.base': '{{#label}} doit être une date ISO valide.',
};

export function joiDetails(error: Joi.ValidationError): ErrorDetail[] {
  return error.details.map((detail) => ({ field: detail.path.join('.') || String(detail.context?.key ?? ''), message: detail.message }));
}

/**
 * Validates a value against a schema, returning the converted value or throwing a
 * ValidationError whose details name each field. `allowUnknown` is for HTML forms,
 * which ignore fields they do not know; JSON bodies refuse them.
 */
export function validateValue<T>(schema: Joi.Schema, value: unknown, options: { allowUnknown?: boolean } = {}): T {
  const result = schema.validate(value, {
    abortEarly: false,
    allowUnknown: options.allowUnknown ?? false,
    stripUnknown: options.allowUnknown ? { objects: true } : false,
    convert: true,
    messages: joiMessages,
    errors: { wrap: { label: '«»' } },
  });
  if (result.error) {
    throw new ValidationError(validationMessages.invalid, { details: joiDetails(result.error) });
  }
  return result.value as T;
}

/** Middleware: validated values replace req.params, req.body and res.locals.query. */
export function validate(schemas: RequestSchemas, options: { allowUnknown?: boolean } = {}) {
  return function validateMiddleware(req: Request, res: Response, next: NextFunction): void {
    if (schemas.params) req.params = validateValue(schemas.params, req.params);
    // Express 5 makes req.query a getter: validated query values live in res.locals.query.
    if (schemas.query) res.locals.query = validateValue(schemas.query, req.query);
    if (schemas.body) req.body = validateValue(schemas.body, req.body ?? {}, options);
    next();
  };
}
