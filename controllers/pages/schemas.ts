// joi schemas of the pages module's JSON routes (the edge; the API surface refuses
// unknown body fields and query parameters). Blocks and SEO use the module's own
// schemas (models/pages/blocks.ts), so the edge and the model apply one rule; the page
// rules themselves (title, slug format, reserved slugs, template, dates, cycles) live
// in the model, which words their messages.
import Joi from 'joi';
import { id, idParam, MAX_ID, pagination, text } from '../../lib/schema-primitives.js';
import { singleLine } from '../../lib/validation.js';
import { seoSchema } from '../../models/pages/blocks.js';
import { searchMessages } from '../../models/pages/messages.js';
import { SEARCH_MAX_LENGTH, SEARCH_MIN_LENGTH } from '../../models/pages/search.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import type { PageInput, PagePatch, Visibility } from '../../models/pages/pages.js';
import { PAGE_ACCESSES, type PageAccess } from '../../models/pages/access.js';

const visibility = text().valid('public', 'private');

function pageFields(catalog: PageCatalog) {
  return {
    // One line: a title lands in the tab, the navigation, the sitemap and the audit log.
    title: singleLine(text().allow('').max(300)),
    slug: text().allow('').max(200),
    parent_id: id.allow(null),
    template: text().max(64),
    blocks: catalog.blocks.schema(),
    seo: seoSchema,
    visibility,
  };
}

/** Who may read the page (models/pages/access.ts): live at once, so never part of a draft's body. */
interface AccessFields {
  access?: PageAccess;
  access_roles?: number[];
}

const accessFields = {
  access: text().valid(...PAGE_ACCESSES),
  access_roles: Joi.array().items(id).max(100).unique(),
};

export type PageCreateBody = PageInput & AccessFields & { publish?: boolean };

export function createPageBody(catalog: PageCatalog): Joi.ObjectSchema<PageCreateBody> {
  const fields = pageFields(catalog);
  return Joi.object<PageCreateBody>({ ...fields, ...accessFields, title: fields.title.required(), publish: Joi.boolean().strict() });
}

/** The revision a write was based on (optional: SPEC clients send none). */
export const ifRevision = Joi.number().integer().min(0).max(MAX_ID);

/** `merge`: a stale `if_revision` is merged three-way instead of refused (409 only on a real clash). */
type PageWriteBody = PagePatch & { if_revision?: number; merge?: boolean };

export type PageUpdateBody = PageWriteBody & AccessFields;

// created_at is parsed and checked by the model (calendar, from 1970, in the past).
export function updatePageBody(catalog: PageCatalog): Joi.ObjectSchema<PageUpdateBody> {
  return Joi.object<PageUpdateBody>({
    ...pageFields(catalog),
    ...accessFields,
    created_at: text().max(40),
    if_revision: ifRevision,
    merge: Joi.boolean().strict(),
  });
}

/** `autosave`: the editor's own save while typing; by the same person within ten minutes, it continues its revision. */
export type DraftWriteBody = PageWriteBody & { autosave?: boolean };

export function draftBody(catalog: PageCatalog): Joi.ObjectSchema<DraftWriteBody> {
  return Joi.object<DraftWriteBody>({
    ...pageFields(catalog),
    created_at: text().max(40),
    if_revision: ifRevision,
    merge: Joi.boolean().strict(),
    autosave: Joi.boolean().strict(),
  });
}

export interface AdminListQuery {
  visibility?: Visibility;
  parent?: 'root' | number;
  limit: number;
  offset: number;
}

export const adminListQuery = Joi.object<AdminListQuery>({
  visibility,
  parent: Joi.alternatives(text().valid('root'), idParam),
  ...pagination(500, 100),
});

export const deleteQuery = Joi.object<{ cascade: boolean }>({ cascade: Joi.boolean().default(false) });

export const byPathQuery = Joi.object<{ path: string }>({ path: text().max(7000).required() });

export const publicListQuery = Joi.object<{ parent?: string; limit: number; offset: number }>({
  parent: text().allow('').max(7000),
  ...pagination(200, 200),
});

/** What a search may be: 2 to 200 characters once trimmed (the site's form and the API share it). */
export const searchText = text().trim().min(SEARCH_MIN_LENGTH).max(SEARCH_MAX_LENGTH).required().label('Recherche').messages({
  'any.required': searchMessages.empty,
  'string.empty': searchMessages.empty,
  'string.min': searchMessages.tooShort,
  'string.max': searchMessages.tooLong,
});

export const searchApiQuery = Joi.object<{ q: string; limit: number; offset: number }>({ q: searchText, ...pagination(50, 10) });

/** `/recherche`: the text is checked by the page itself (searchText), which shows the form again with the message. */
export const searchPageQuery = Joi.object<{ q?: string; page: number }>({
  q: text().allow('').max(5000),
  page: Joi.number().integer().min(1).max(1000).default(1).label('Page'),
});

export const mediaListQuery = Joi.object<{ limit: number; offset: number }>(pagination(200, 50));

export interface MediaTextsBody {
  alt?: string;
  caption?: string;
}

/** PUT /app/api/admin/media/:id: the texts and the focal point (whole percents of the width and the height). */
export interface MediaEditBody extends MediaTextsBody {
  focal_point?: { x: number; y: number };
}

const percent = Joi.number().integer().min(0).max(100).required();

export const mediaTextsBody = Joi.object<MediaTextsBody>({
  alt: text().allow('').max(500),
  caption: text().allow('').max(1000),
});

export const mediaEditBody = (mediaTextsBody as Joi.ObjectSchema<MediaEditBody>).keys({ focal_point: Joi.object({ x: percent, y: percent }) });
