import path from 'node:path';
import type { Express } from 'express';
import nunjucks from 'nunjucks';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { frenchDates, isoDateTime, timeElement, type DateInput, type FrenchDates } from './dates.js';
import { viewsDir } from './paths.js';
import { countOf, fileSize } from './quantities.js';

/** A module's views: `views/<module>` (declared by its register() call: site.views()). */
export function moduleViewsDirectory(module: string): string {
  return path.join(viewsDir, module);
}

/**
 * One Nunjucks environment per app (held by its context), autoescaping on; user data
 * never reaches renderString. Controllers render through it with res.render, use cases
 * with renderView(): the same templates, filters and globals either way. The search
 * path is the core's views, then each module's folder in the order they registered.
 */
export function createViews(
  config: Config,
  clock: Clock,
  moduleDirectories: readonly string[] = [],
  frontDirectories: readonly string[] = [],
): nunjucks.Environment {
  // A theme's views/ (frontDirectories) come first: they override the site's views by name.
  const searchPath = [...frontDirectories, viewsDir, ...moduleDirectories];
  // Templates are read again at each render only in development, where they are edited
  // while the server runs; in production and in the tests (nothing edits them during a
  // run) each is compiled once per environment, which was a fifth of a route test's CPU.
  const environment = new nunjucks.Environment(new nunjucks.FileSystemLoader(searchPath, { noCache: config.nodeEnv === 'development' }), {
    autoescape: true,
    throwOnUndefined: false,
  });
  environment.addGlobal('appName', config.appName);
  // Dates on screens: French, in the site's time zone (APP_TIMEZONE): «22 novembre 2026 à 21 h 04».
  // A view may name another zone (`date | frenchDateTime(site.time_zone)`: the public site's, a site setting).
  const dates = frenchDates(config.timeZone);
  const zones = new Map<string, FrenchDates>([[config.timeZone, dates]]);
  const inZone = (zone: unknown): FrenchDates => {
    if (typeof zone !== 'string' || !zone) return dates;
    let known = zones.get(zone);
    if (!known) zones.set(zone, (known = frenchDates(zone)));
    return known;
  };
  environment.addFilter('frenchDateTime', (value: DateInput, zone?: unknown) => inZone(zone).dateTime(value));
  environment.addFilter('frenchDate', (value: DateInput, zone?: unknown) => inZone(zone).date(value));
  environment.addFilter('frenchTime', (value: DateInput, zone?: unknown) => inZone(zone).time(value));
  environment.addFilter('isoDateTime', isoDateTime);
  // Lists: «il y a 3 minutes» in a <time> holding the full date; now is the app's clock (tests move it).
  environment.addGlobal('timeAgo', (value: DateInput) => new nunjucks.runtime.SafeString(timeElement(dates, value, clock.now())));
  // Counts and sizes: «Aucun compte» / «1 compte» / «N comptes», «40,7 Kio».
  environment.addFilter('countOf', countOf);
  environment.addFilter('fileSize', fileSize);
  return environment;
}

/** res.render (and app.render) go through the context's environment. */
export function useViews(app: Express, environment: nunjucks.Environment): void {
  environment.express(app);
  app.set('view engine', 'njk');
}

/**
 * A view rendered to a string with exactly `locals` (nothing of Express's app.locals or
 * res.locals): what a use case renders without a request.
 */
export function renderView(views: nunjucks.Environment, view: string, locals: Record<string, unknown>): Promise<string> {
  return new Promise((resolve, reject) =>
    views.render(view, locals, (error: Error | null, html: string | null) => (error ? reject(error) : resolve(html ?? ''))),
  );
}
