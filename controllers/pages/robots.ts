// GET /robots.txt — what crawlers may read: the public pages, not the administration,
// the sign-in pages, the account pages nor the API; and where the sitemap is. Each
// closed area is written as its exact path (`$`), its path with a query (`?`) and
// everything under it (`/`), never as a bare prefix: `Disallow: /admin` would also
// close a page `/administration` (a slug may begin like a reserved one).
// With the site's «Ne pas indexer le site» setting, the whole site is closed.
import type { Call } from '../../routes/define.js';
import { siteLook } from '../../models/settings/store.js';
import { absoluteUrl } from '../../services/pages-rendering.js';
import { publicCacheControl } from './public-answers.js';

const ROBOTS_CLOSED_PATHS = ['/admin', '/auth', '/account', '/app/api'] as const;

function robotsText(baseUrl: string): string {
  const lines = ['User-agent: *'];
  for (const path of ROBOTS_CLOSED_PATHS) lines.push(`Disallow: ${path}$`, `Disallow: ${path}?`, `Disallow: ${path}/`);
  lines.push('', `Sitemap: ${absoluteUrl(baseUrl, '/sitemap.xml')}`, '');
  return lines.join('\n');
}

export async function serveRobots(call: Call): Promise<void> {
  const { ctx, res } = call;
  // The settings are in memory: no statement once read.
  const { noindex } = await siteLook(ctx);
  res.set('Content-Type', 'text/plain; charset=utf-8');
  // It changes with the noindex setting: revalidated like the pages.
  res.set('Cache-Control', publicCacheControl(ctx));
  res.send(noindex ? 'User-agent: *\nDisallow: /\n' : robotsText(ctx.config.baseUrl));
}
