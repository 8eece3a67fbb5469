import type { Express } from 'express';
import nunjucks from 'nunjucks';
import type { Config } from './config.js';
import { viewsDir } from './paths.js';

/** One Nunjucks environment per app, autoescaping on; user data never reaches renderString. */
export function configureViews(app: Express, config: Config): nunjucks.Environment {
  const environment = new nunjucks.Environment(new nunjucks.FileSystemLoader(viewsDir, { noCache: !config.isProduction }), {
    autoescape: true,
    throwOnUndefined: false,
  });
  environment.express(app);
  environment.addGlobal('appName', config.appName);
  app.set('view engine', 'njk');
  return environment;
}
