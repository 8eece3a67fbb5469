// The rules a page's fields obey whoever writes them (the API, the admin screens, a
// test): title, slug, template, created_at, and the content (blocks, SEO) checked by
// the same schemas as the API's edge. Each refusal is a ValidationError naming its field.
import Joi from 'joi';
import { ValidationError } from '../../lib/errors.js';
import { validateValue } from '../../lib/validation.js';
import { seoSchema, withBlockIds, type Block } from './blocks.js';
import type { PageCatalog } from './catalog.js';
import { blockMessages, pageMessages } from './messages.js';
import { isReservedRootSlug, isValidSlug } from './slugs.js';

export const TITLE_MAX_LENGTH = 300;
/** created_at may not be older than this year (nothing older fits a web page). */
const CREATED_AT_MIN_YEAR = 1970;

export function fieldError(name: string, message: string): ValidationError {
  return new ValidationError(message, { details: [{ field: name, message }] });
}

export function cleanTitle(title: unknown): string {
  const trimmed = typeof title === 'string' ? title.trim() : '';
  if (!trimmed) throw fieldError('title', pageMessages.titleRequired);
  return trimmed.slice(0, TITLE_MAX_LENGTH);
}

export function checkSlug(slug: string): string {
  if (!isValidSlug(slug)) throw fieldError('slug', pageMessages.slugInvalid);
  return slug;
}

export function checkTemplate(catalog: PageCatalog, template: string): string {
  if (!catalog.templates.has(template)) throw fieldError('template', pageMessages.templateUnknown(template));
  return template;
}

export function checkRootSlug(slug: string, parentId: number | null): void {
  if (parentId === null && isReservedRootSlug(slug)) throw fieldError('slug', pageMessages.slugReserved(slug));
}

// `2024-05-01`, or with a time (`T` or a space), seconds, fraction and offset optional.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * created_at (settable on update only): an ISO date that exists on the calendar
 * (`2026-02-30` does not), from 1970 on, in the past of the application clock. A time
 * without an offset is UTC, whatever the server's time zone.
 */
export function parseCreatedAt(value: unknown, now: Date): Date {
  const match = typeof value === 'string' ? ISO_DATE.exec(value.trim()) : null;
  if (!match) throw fieldError('created_at', pageMessages.createdAtInvalid);
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '0', offset = 'Z'] = match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number);
  const offsetHours = offset === 'Z' ? 0 : Number(offset.slice(1, 3));
  const offsetMinutes = offset === 'Z' ? 0 : Number(offset.slice(-2));
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59 || offsetHours > 14 || offsetMinutes > 59) {
    throw fieldError('created_at', pageMessages.createdAtInvalid);
  }
  if (y < CREATED_AT_MIN_YEAR) throw fieldError('created_at', pageMessages.createdAtTooOld);
  const sign = offset.startsWith('-') ? -1 : 1;
  const milliseconds = Math.floor(Number(`0.${fraction}`) * 1000);
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s, milliseconds) - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
  if (date.getTime() < 0) throw fieldError('created_at', pageMessages.createdAtTooOld);
  if (date.getTime() > now.getTime()) throw fieldError('created_at', pageMessages.createdAtFuture);
  return date;
}

/** Blocks as the catalog's types allow them (the converted value is what gets stored). */
export function checkBlocks(catalog: PageCatalog, blocks: unknown): Block[] {
  const checked = withBlockIds(validateValue<{ blocks: Block[] }>(Joi.object({ blocks: catalog.blocks.schema().required() }), { blocks }).blocks);
  // Ids are what a merge matches blocks by: two blocks of one page never share one.
  const seen = new Set<string>();
  const details = checked.flatMap((block, index) => {
    const taken = seen.has(block.id as string);
    seen.add(block.id as string);
    return taken ? [{ field: `blocks.${index}.id`, message: blockMessages.idTaken }] : [];
  });
  if (details.length) throw new ValidationError(blockMessages.idTaken, { details });
  return checked;
}

export function checkSeo(seo: unknown): Record<string, unknown> {
  return validateValue<{ seo: Record<string, unknown> }>(Joi.object({ seo: seoSchema.required() }), { seo }).seo;
}

/** Where each image block points: `[index, media id]`, for the existence check. */
export function imageMediaIds(blocks: Block[]): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  blocks.forEach((block, index) => {
    if (block.type === 'image' && Number.isInteger(block.media_id)) found.push([index, block.media_id as number]);
  });
  return found;
}
