// GET /robots.txt — what crawlers may read: the public pages, not the administration,
// the sign-in pages, the account pages nor the API; and where the sitemap is. Each
// closed area is written as its exact path (`$`), its path with a query (`?`) and
// everything under it (`/`), never as a bare prefix: `Disallow: /admin` would also
// close a page `/administration` (a slug may begin like a reserved one).
import type { Call } from '../../routes/define.js';
import { absoluteUrl } from '../../services/pages-rendering.js';

const ROBOTS_CLOSED_PATHS = ['/admin', '/auth', '/account', '/app/api'] as const;

function robotsText(baseUrl: string): string {
  const lines = ['User-agent: *'];
  for (const path of ROBOTS_CLOSED_PATHS) lines.push(`Disallow: ${path}$`, `Disallow: ${path}?`, `Disallow: ${path}/`);
  lines.push('', `Sitemap: ${absoluteUrl(baseUrl, '/sitemap.xml')}`, '');
  return lines.join('\n');
}

export function serveRobots(call: Call): void {
  const { ctx, res } = call;
  res.set('Content-Type', 'text/plain; charset=utf-8');
  // It changes only with BASE_URL (a restart): a day in caches is harmless.
  res.set('Cache-Control', 'public, max-age=86400');
  res.send(robotsText(ctx.config.baseUrl));
}
