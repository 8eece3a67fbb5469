// GET /assets/vendor/simplewebauthn-browser.js — the browser half of the passkeys
// (@simplewebauthn/browser's UMD bundle, which defines `SimpleWebAuthnBrowser`), served
// from the installed package rather than copied into public/: the file the page runs is
// always the version package.json pins, and the server's half (@simplewebauthn/server)
// moves with it. Cached like the other assets.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../lib/config.js';

export const WEBAUTHN_BROWSER_PATH = '/assets/vendor/simplewebauthn-browser.js';

function bundleFile(): string {
  // The package's entry (esm/index.js) sits one folder under its root.
  const entry = fileURLToPath(import.meta.resolve('@simplewebauthn/browser'));
  return path.join(path.dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js');
}

export function serveWebAuthnBrowser(config: Config): RequestHandler {
  const file = bundleFile();
  const maxAge = config.isProduction ? 86_400_000 : 0;
  return function serveBundle(_req: Request, res: Response): void {
    res.locals.routePattern = '/assets/*';
    res.locals.quietLog = true;
    res.type('application/javascript');
    res.sendFile(file, { maxAge });
  };
}
