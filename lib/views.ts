import type { Express } from 'express';
import nunjucks from 'nunjucks';
import type { Config } from './config.js';
import { frenchDates, isoDateTime, timeElement, type DateInput } from './dates.js';
import { viewsDir } from './paths.js';
import { countOf, fileSize } from './quantities.js';

/** One Nunjucks environment per app, autoescaping on; user data never reaches renderString. */
export function configureViews(app: Express, config: Config): nunjucks.Environment {
  const environment = new nunjucks.Environment(new nunjucks.FileSystemLoader(viewsDir, { noCache: !config.isProduction }), {
    autoescape: true,
    throwOnUndefined: false,
  });
  environment.express(app);
  environment.addGlobal('appName', config.appName);
  // Dates on screens: French, in the site's time zone (APP_TIMEZONE): «22 novembre 2026 à 21 h 04».
  const dates = frenchDates(config.timeZone);
  environment.addFilter('frenchDateTime', dates.dateTime);
  environment.addFilter('frenchDate', dates.date);
  environment.addFilter('frenchTime', dates.time);
  environment.addFilter('isoDateTime', isoDateTime);
  // Lists: «il y a 3 minutes» in a <time> holding the full date; now is the app's clock (tests move it).
  environment.addGlobal('timeAgo', (value: DateInput) => {
    const clock = (app.locals as { ctx?: { clock: { now(): Date } } }).ctx?.clock;
    return new nunjucks.runtime.SafeString(clock ? timeElement(dates, value, clock.now()) : dates.dateTime(value));
  });
  // Counts and sizes: «Aucun compte» / «1 compte» / «N comptes», «40,7 Kio».
  environment.addFilter('countOf', countOf);
  environment.addFilter('fileSize', fileSize);
  app.set('view engine', 'njk');
  return environment;
}
