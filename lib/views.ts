import type { Express } from 'express';
import nunjucks from 'nunjucks';
import type { Config } from './config.js';
import { frenchDates } from './dates.js';
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
  // Dates on screens: French, in the site's time zone (APP_TIME_ZONE).
  const dates = frenchDates(config.timeZone);
  environment.addFilter('frenchDateTime', dates.dateTime);
  environment.addFilter('frenchDate', dates.date);
  // Counts and sizes: «Aucun compte» / «1 compte» / «N comptes», «40,7 Kio».
  environment.addFilter('countOf', countOf);
  environment.addFilter('fileSize', fileSize);
  app.set('view engine', 'njk');
  return environment;
}
