// Public site rows of the pages module (GET only, no session: declared 'public'),
// mounted by routes/site.ts after every other area. The catch-all comes last.
import { renderHome, renderPublicPage, renderSitemap } from '../../controllers/pages/site.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { route, type AnyRoute } from '../define.js';

export function pagesSiteRoutes(catalog: PageCatalog): AnyRoute[] {
  return [
    route({ method: 'get', path: '/sitemap.xml', access: 'public', handler: renderSitemap }),
    route({ method: 'get', path: '/', access: 'public', handler: (call) => renderHome(catalog, call) }),
    route({ method: 'get', path: '/*path', access: 'public', handler: (call) => renderPublicPage(catalog, call) }),
  ];
}
