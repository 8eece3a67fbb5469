// Dates as the screens and emails write them (lib/dates.ts), and the setting that picks
// their time zone (APP_TIMEZONE, or its first name APP_TIME_ZONE).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { mailTemplatesDir, viewsDir } from '../../lib/paths.js';
import { frenchDates, isoDateTime, timeElement } from '../../lib/dates.js';
import { ConfigError } from '../../lib/config.js';
import { testConfig } from '../support/app.js';

// Written with visible spaces; the formatter puts no-break spaces where French needs them.
const nb = (text: string) => text.replace(/_/g, '\u00a0');

describe('French dates (lib/dates.ts)', () => {
  const paris = frenchDates('Europe/Paris');

  it('writes «22 novembre 2026 à 21 h 04» in the site’s zone, no-break spaces inside the date and the hour', () => {
    expect(paris.dateTime('2026-11-22T20:04:00Z')).to.equal(nb('22_novembre 2026 à 21_h_04'));
    expect(paris.date('2026-11-22T20:04:00Z')).to.equal(nb('22_novembre 2026'));
    expect(paris.time('2026-11-22T20:04:00Z')).to.equal(nb('21_h_04'));
  });

  it('writes the first of a month «1er», hours without a leading zero, and follows summer time', () => {
    expect(paris.dateTime('2026-07-01T07:04:00Z')).to.equal(nb('1er_juillet 2026 à 9_h_04'));
    expect(paris.dateTime('2026-07-01T22:30:00Z')).to.equal(nb('2_juillet 2026 à 0_h_30'));
    expect(frenchDates('America/Montreal').dateTime('2026-07-01T22:30:00Z')).to.equal(nb('1er_juillet 2026 à 18_h_30'));
  });

  it('answers an empty string for no date or an unreadable one', () => {
    for (const value of [null, undefined, '', 'not a date']) {
      expect(paris.dateTime(value)).to.equal('');
      expect(paris.relative(value, new Date())).to.equal('');
      expect(isoDateTime(value)).to.equal('');
    }
  });

  it('writes relative times for lists: à l’instant, minutes, hours, calendar days, then the date', () => {
    const now = new Date('2026-11-22T20:04:00Z'); // 21 h 04 in Paris
    const ago = (ms: number) => paris.relative(new Date(now.getTime() - ms), now);
    expect(ago(10_000)).to.equal('à l’instant');
    expect(ago(-5_000)).to.equal('à l’instant');
    expect(ago(3 * 60_000)).to.equal('il y a 3 minutes');
    expect(ago(61 * 60_000)).to.equal('il y a 1 heure');
    expect(ago(23 * 3_600_000)).to.equal('il y a 23 heures');
    expect(ago(30 * 3_600_000)).to.equal('hier');
    expect(ago(3 * 86_400_000)).to.equal('il y a 3 jours');
    expect(ago(9 * 86_400_000)).to.equal(nb('13_novembre 2026'));
  });

  it('counts days by the calendar of the zone, not by 24-hour spans', () => {
    // 25 h 30 before 23 h 30 is 22 h the day before: «hier».
    expect(paris.relative(new Date('2026-11-22T21:00:00Z'), new Date('2026-11-23T22:30:00Z'))).to.equal('hier');
    // 25 h before 0 h 30 is 23 h 30 two calendar days before: «avant-hier».
    expect(paris.relative(new Date('2026-11-21T22:30:00Z'), new Date('2026-11-22T23:30:00Z'))).to.equal('avant-hier');
  });

  it('builds a <time> with the instant, the full date as its title and the relative time as its text', () => {
    const now = new Date('2026-11-22T20:04:00Z');
    expect(timeElement(paris, '2026-11-22T20:01:00Z', now)).to.equal(
      `<time datetime="2026-11-22T20:01:00.000Z" title="${nb('22_novembre 2026 à 21_h_01')}">il y a 3 minutes</time>`,
    );
    expect(timeElement(paris, null, now)).to.equal('');
  });
});

describe('dates in the views and emails', () => {
  /** Every template file under a folder. */
  function templates(dir: string): string[] {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.njk'))
      .map((file) => path.join(dir, file));
  }

  it('are written by the French filters only: no ISO, UTC or locale formatting outside a datetime attribute', () => {
    const found: string[] = [];
    for (const file of [...templates(viewsDir), ...templates(mailTemplatesDir)]) {
      // A machine-readable instant in `<time datetime="…">` is what ISO is for.
      const text = readFileSync(file, 'utf8').replace(/datetime="[^"]*"/g, '');
      for (const match of text.matchAll(/\.(toISOString|toUTCString|toDateString|toLocale\w*String|toJSON)\(|\|\s*date\b/g)) {
        found.push(`${path.relative(viewsDir, file)}: ${match[0]}`);
      }
    }
    expect(found).to.deep.equal([]);
  });
});

describe('APP_TIMEZONE', () => {
  it('defaults to Europe/Paris', () => {
    expect(testConfig().timeZone).to.equal('Europe/Paris');
  });

  it('takes APP_TIMEZONE, still reads its first name APP_TIME_ZONE, and prefers APP_TIMEZONE when both are set', () => {
    expect(testConfig({ APP_TIMEZONE: 'America/Montreal' }).timeZone).to.equal('America/Montreal');
    expect(testConfig({ APP_TIME_ZONE: 'Asia/Tokyo' }).timeZone).to.equal('Asia/Tokyo');
    expect(testConfig({ APP_TIMEZONE: 'UTC', APP_TIME_ZONE: 'Asia/Tokyo' }).timeZone).to.equal('UTC');
  });

  it('refuses an unknown zone at start, naming the variable', () => {
    expect(() => testConfig({ APP_TIMEZONE: 'Mars/Olympus' })).to.throw(ConfigError, /APP_TIMEZONE/);
    expect(() => testConfig({ APP_TIME_ZONE: 'Mars/Olympus' })).to.throw(ConfigError, /APP_TIME_ZONE/);
  });
});
