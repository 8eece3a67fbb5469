// Dates as people read them on the screens and in the emails: French words, the site's
// time zone (APP_TIMEZONE, Europe/Paris by default), «22 novembre 2026 à 21 h 04» (French
// writes the hour with «h», not «21:04»), «1er» for the first of a month, and relative
// times in lists («il y a 3 minutes»). JSON keeps ISO 8601 in UTC beside them.
export type DateInput = Date | string | number | null | undefined;

/** The no-break space French puts inside «21 h 04» and «1er juillet» (a line never splits them). */
const NBSP = '\u00a0';

export interface FrenchDates {
  /** «23 novembre 2026 à 14 h 05»; '' for no date. */
  dateTime: (value: DateInput) => string;
  /** «23 novembre 2026»; '' for no date. */
  date: (value: DateInput) => string;
  /** «14 h 05»; '' for no date. */
  time: (value: DateInput) => string;
  /** «à l’instant», «il y a 3 minutes», «hier», then the date («2 janvier 2026») past a week; '' for no date. */
  relative: (value: DateInput, now: Date | number) => string;
}

function toDate(value: DateInput): Date | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** ISO 8601 in UTC for `<time datetime>`; '' for no date. */
export function isoDateTime(value: DateInput): string {
  return toDate(value)?.toISOString() ?? '';
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Formatters for one time zone (made once per app for the views and the mail, or per
 * answer). Each Intl formatter is built on its first use: the first one loads the
 * locale's data (tens of milliseconds), which a start and a public page never need.
 */
export function frenchDates(timeZone: string): FrenchDates {
  let parts: Intl.DateTimeFormat | undefined;
  let relative: Intl.RelativeTimeFormat | undefined;
  let dayOf: Intl.DateTimeFormat | undefined;
  // The calendar day in the zone, as a day number: «hier» is the day before, whatever the hour.
  const dayNumber = (instant: Date) => {
    dayOf ??= new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    return Date.parse(`${dayOf.format(instant)}T00:00:00Z`) / DAY;
  };

  const pieces = (date: Date) => {
    parts ??= new Intl.DateTimeFormat('fr-FR', {
      timeZone,
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    const found: Record<string, string> = {};
    for (const part of parts.formatToParts(date)) found[part.type] = part.value;
    const day = found.day === '1' ? `1er` : found.day;
    return { day: `${day}${NBSP}${found.month} ${found.year}`, time: `${Number(found.hour)}${NBSP}h${NBSP}${found.minute}` };
  };
  const date = (value: DateInput) => {
    const parsed = toDate(value);
    return parsed ? pieces(parsed).day : '';
  };

  return {
    dateTime: (value) => {
      const parsed = toDate(value);
      if (!parsed) return '';
      const { day, time } = pieces(parsed);
      return `${day} à ${time}`;
    },
    date,
    time: (value) => {
      const parsed = toDate(value);
      return parsed ? pieces(parsed).time : '';
    },
    relative: (value, now) => {
      const parsed = toDate(value);
      if (!parsed) return '';
      const elapsed = (typeof now === 'number' ? now : now.getTime()) - parsed.getTime();
      // A clock a little ahead of the database (or the reverse) reads as «now», never «dans 2 secondes».
      if (elapsed < MINUTE) return 'à l’instant';
      relative ??= new Intl.RelativeTimeFormat('fr', { numeric: 'auto' });
      if (elapsed < HOUR) return relative.format(-Math.floor(elapsed / MINUTE), 'minute');
      if (elapsed < DAY) return relative.format(-Math.floor(elapsed / HOUR), 'hour');
      const days = dayNumber(new Date(parsed.getTime() + elapsed)) - dayNumber(parsed);
      return days < 7 ? relative.format(-days, 'day') : date(parsed);
    },
  };
}

/**
 * `<time>` for lists: the relative time as text, the full date in `title` (hover) and the
 * instant in `datetime`; '' for no date. Only digits and French words: nothing to escape.
 */
export function timeElement(dates: FrenchDates, value: DateInput, now: Date | number): string {
  const parsed = toDate(value);
  if (!parsed) return '';
  return `<time datetime="${parsed.toISOString()}" title="${dates.dateTime(parsed)}">${dates.relative(parsed, now)}</time>`;
}
