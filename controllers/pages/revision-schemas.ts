// joi schemas of the revisions, drafts and publishing routes (the edge). The draft's
// body is PUT's (updatePageBody); the schedule's time is read here, its place in the
// future is the model's rule (the application clock).
import Joi from 'joi';
import { idParam, pagination, text } from '../../lib/schema-primitives.js';
import { ifRevision } from './schemas.js';
import { revisionMessages } from '../../models/pages/messages.js';

export const revisionParams = Joi.object<{ id: number; number: number }>({ id: idParam.required(), number: idParam.required() });

export const revisionListQuery = Joi.object<{ limit: number; offset: number }>(pagination(200, 50));

// A date and a time (seconds, fraction and offset optional; without an offset, UTC).
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** An ISO date and time that exists on the calendar, as a Date; null otherwise. */
function parseDateTime(value: string): Date | null {
  const match = ISO_DATE_TIME.exec(value.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute, second = '0', offset] = match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59) return null;
  const normalised = value.trim().replace(' ', 'T') + (offset ? '' : 'Z');
  const date = new Date(normalised);
  return Number.isNaN(date.getTime()) ? null : date;
}

export const scheduleTime = text()
  .max(40)
  .custom((value: string, helpers) => parseDateTime(value) ?? helpers.error('date.unreadable'))
  .messages({ 'date.unreadable': revisionMessages.scheduleInvalid });

export interface PublishBody {
  at?: Date;
  if_revision?: number;
}

export const publishBody = Joi.object<PublishBody>({ at: scheduleTime, if_revision: ifRevision });
