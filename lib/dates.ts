// Dates as people read them on the screens: French words, the site's time zone
// (APP_TIME_ZONE, Europe/Paris by default). JSON keeps ISO 8601 in UTC beside them.
export type DateInput = Date | string | number | null | undefined;

export interface FrenchDates {
  /** «23 novembre 2026 à 14:05»; '' for no date. */
  dateTime: (value: DateInput) => string;
  /** «23 novembre 2026»; '' for no date. */
  date: (value: DateInput) => string;
}

function toDate(value: DateInput): Date | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Formatters for one time zone (made once per app for the views, or per answer). */
export function frenchDates(timeZone: string): FrenchDates {
  const dateTime = new Intl.DateTimeFormat('fr-FR', { timeZone, day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit' });
  const date = new Intl.DateTimeFormat('fr-FR', { timeZone, day: 'numeric', month: 'long', year: 'numeric' });
  return {
    dateTime: (value) => {
      const parsed = toDate(value);
      return parsed ? dateTime.format(parsed) : '';
    },
    date: (value) => {
      const parsed = toDate(value);
      return parsed ? date.format(parsed) : '';
    },
  };
}
