// joi schemas of the pages module's JSON routes (the edge). The page rules themselves
// (title, slug format, reserved slugs, template, dates, cycles) live in the model so
// they hold for every caller; these only type the input and refuse unknown fields.
import Joi from 'joi';

const id = Joi.number().integer().min(1).max(2_147_483_647);

export const idParams = Joi.object({ id: id.required() });

const block = Joi.object({ type: Joi.string().min(1).max(64).required() }).unknown(true);

const seo = Joi.object({
  title: Joi.string().allow('').max(300),
  description: Joi.string().allow('').max(1000),
  image: Joi.string().allow('').max(2000),
  noindex: Joi.boolean(),
}).unknown(true);

const pageFields = {
  title: Joi.string().allow('').max(300),
  slug: Joi.string().allow('').max(200),
  parent_id: id.allow(null),
  template: Joi.string().max(64),
  blocks: Joi.array().items(block).max(500),
  seo,
  visibility: Joi.string().valid('public', 'private'),
};

export const createPageBody = Joi.object({ ...pageFields, title: pageFields.title.required() });

// Parsed and checked by the model (ISO, in the past), which words the message.
export const updatePageBody = Joi.object({ ...pageFields, created_at: Joi.any() });

const pagination = (max: number, fallback: number) => ({
  limit: Joi.number().integer().min(1).max(max).default(fallback),
  offset: Joi.number().integer().min(0).max(10_000_000).default(0),
});

export const adminListQuery = Joi.object({
  visibility: Joi.string().valid('public', 'private'),
  parent: Joi.alternatives(Joi.string().valid('root'), id),
  ...pagination(500, 100),
});

export const deleteQuery = Joi.object({ cascade: Joi.boolean().default(false) });

export const byPathQuery = Joi.object({ path: Joi.string().max(7000).required() });

export const publicListQuery = Joi.object({
  parent: Joi.string().max(7000),
  ...pagination(200, 200),
});

export const mediaListQuery = Joi.object(pagination(200, 50));

export const mediaPatchBody = Joi.object({
  alt: Joi.string().allow('').max(500),
  caption: Joi.string().allow('').max(1000),
});

export const mediaUploadBody = Joi.object({
  alt: Joi.string().allow('').max(500),
  caption: Joi.string().allow('').max(1000),
});
