// Public site rows of the pages module (GET only, no session: declared 'public'),
// mounted by routes/site.ts after every other area. The catch-all comes last. The
// sitemap's gate is created here, once per application (register() runs per app).
import { previewTokenParams, showPreview } from '../../controllers/pages/preview.js';
import { serveRobots } from '../../controllers/pages/robots.js';
import { renderHome, renderPublicPage } from '../../controllers/pages/site.js';
import { serveSitemapFile, serveSitemapIndex, sitemapParams, type SitemapOptions } from '../../controllers/pages/sitemap.js';
import { showSearchPage } from '../../controllers/pages/search.js';
import { searchPageQuery } from '../../controllers/pages/schemas.js';
import { createGate } from '../../lib/gate.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { route, type AnyRoute } from '../define.js';

export function pagesSiteRoutes(catalog: PageCatalog, sitemap: SitemapOptions): AnyRoute[] {
  const gate = createGate(sitemap.concurrency, sitemap.duty);
  return [
    route({ method: 'get', path: '/sitemap.xml', access: 'public', handler: (call) => serveSitemapIndex(sitemap, gate, call) }),
    // A page slug has no dot, so no page can take these paths (nor /robots.txt).
    route({ method: 'get', path: '/sitemap-:n.xml', access: 'public', params: sitemapParams, handler: (call) => serveSitemapFile(sitemap, gate, call) }),
    route({ method: 'get', path: '/robots.txt', access: 'public', handler: serveRobots }),
    // A reserved root slug (models/pages/slugs.ts): no page can take it.
    route({ method: 'get', path: '/recherche', access: 'public', query: searchPageQuery, handler: (call) => showSearchPage(catalog, call) }),
    // A slug has no `_`: no page can take this path. The token is the proof (no session).
    route({ method: 'get', path: '/_apercu/:token', access: 'public', params: previewTokenParams, handler: (call) => showPreview(catalog, call) }),
    // The pages and previews get the built-in catalog: the render takes the active theme's
    // (services/pages-rendering.ts), so a redirect, a 404 or a cached hit reads nothing more.
    route({ method: 'get', path: '/', access: 'public', handler: (call) => renderHome(catalog, call) }),
    route({ method: 'get', path: '/*path', access: 'public', handler: (call) => renderPublicPage(catalog, call) }),
  ];
}
