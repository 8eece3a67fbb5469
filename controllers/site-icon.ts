// GET /favicon.ico — every browser asks for it, on every site, whatever the page's
// <link>s say: without an answer each page leaves an error in the console. The core
// answers a default icon; which file that is, is decided by siteIconFile() alone, so a
// site's own icon replaces it there and nowhere else. Not `immutable` (unlike the
// uploads): the same address may later answer another icon.
import path from 'node:path';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../lib/context.js';
import { publicDir } from '../lib/paths.js';

const DEFAULT_SITE_ICON = path.join(publicDir, 'favicon.ico');
const ICON_MAX_AGE_MS = 86_400_000;

/** The file answered at /favicon.ico. */
function siteIconFile(_ctx: AppContext): string {
  return DEFAULT_SITE_ICON;
}

export function serveSiteIcon(ctx: AppContext): RequestHandler {
  return function siteIcon(_req: Request, res: Response, next: NextFunction): void {
    res.locals.routePattern = '/favicon.ico';
    // Asked with every page, as the assets are: logged at debug level like them.
    res.locals.quietLog = true;
    res.sendFile(siteIconFile(ctx), { maxAge: ICON_MAX_AGE_MS, dotfiles: 'deny' }, (error) => {
      if (error) next(error);
    });
  };
}
