// Public site routes of the pages module, mounted after every other route. They run
// without the session middleware (not a session path): a public page costs no session read.
import type { Express } from 'express';
import { renderHome, renderPublicPage, renderSitemap } from '../../controllers/pages/site.js';

export function registerPagesSite(app: Express): void {
  app.get('/sitemap.xml', renderSitemap);
  app.get('/', renderHome);
  // The catch-all, last of all.
  app.use(renderPublicPage);
}
