import type { Express } from 'express';
import nunjucks from 'nunjucks';
import type { Config } from './config.js';
import { viewsDir } from './paths.js';

/** One Nunjucks environment, autoescaping on; user data never reaches renderString. */
export function configureViews(app: Express, config: Config): nunjucks.Environment {
  const environment = nunjucks.configure(viewsDir, {
    autoescape: true,
    express: app,
    noCache: !config.isProduction,
    throwOnUndefined: false,
  });
  environment.addGlobal('appName', config.appName);
  app.set('view engine', 'njk');
  return environment;
}
