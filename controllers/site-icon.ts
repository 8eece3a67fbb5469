// GET /favicon.ico — every browser asks for it, on every site, whatever the page's
// <link>s say: without an answer each page leaves an error in the console. The site's
// own icon when one was uploaded (settings module: an ICO made of its stored PNGs, kept
// in memory until the settings change), else the core's default icon. Not `immutable`
// (unlike the uploads): the same address may later answer another icon.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../lib/context.js';
import { publicDir } from '../lib/paths.js';
import { siteIcon } from '../models/settings/store.js';
import { faviconIco } from '../services/site-settings.js';

const DEFAULT_SITE_ICON = path.join(publicDir, 'favicon.ico');
const ICON_MAX_AGE_MS = 86_400_000;
// The site's own icon may change: caches revalidate it after an hour (ETag).
const OWN_ICON_CACHE = 'public, max-age=3600';

export function serveSiteIcon(ctx: AppContext): RequestHandler {
  return async function serveIcon(_req: Request, res: Response, next: NextFunction): Promise<void> {
    res.locals.routePattern = '/favicon.ico';
    // Asked with every page, as the assets are: logged at debug level like them.
    res.locals.quietLog = true;
    const own = await siteIcon(ctx, (favicon) => faviconIco(ctx, favicon));
    if (own) {
      res.set('Content-Type', 'image/x-icon');
      res.set('Cache-Control', OWN_ICON_CACHE);
      res.set('ETag', `"${createHash('sha256').update(own).digest('base64url').slice(0, 22)}"`);
      res.send(own);
      return;
    }
    res.sendFile(DEFAULT_SITE_ICON, { maxAge: ICON_MAX_AGE_MS, dotfiles: 'deny' }, (error) => {
      if (error) next(error);
    });
  };
}
