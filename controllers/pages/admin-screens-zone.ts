// The schedule control's date and time are the site's wall clock (APP_TIME_ZONE), as
// an editor reads them; the models take and give instants. A `datetime-local` value
// has no offset, so it is converted here, both ways.

/** The zone's offset from UTC at `instant`, in milliseconds. */
function offsetAt(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(instant / 1000) * 1000;
}

/** `2026-12-01T09:30` on the zone's wall clock → the instant; undefined when unreadable. */
export function zonedToInstant(value: string, timeZone: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(wall);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59) return undefined;
  // Twice: the first guess may sit on the other side of a change of offset.
  let instant = wall - offsetAt(wall, timeZone);
  instant = wall - offsetAt(instant, timeZone);
  return new Date(instant);
}

/** The instant as the zone's wall clock, in the `datetime-local` format. */
export function instantToZoned(value: Date | string | null | undefined, timeZone: string): string {
  if (!value) return '';
  const instant = new Date(value).getTime();
  if (Number.isNaN(instant)) return '';
  return new Date(instant + offsetAt(instant, timeZone)).toISOString().slice(0, 16);
}
