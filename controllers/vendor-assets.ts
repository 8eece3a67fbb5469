// GET /assets/vendor/simplewebauthn-browser.<hash>.js — the browser half of the passkeys
// (@simplewebauthn/browser's UMD bundle, which defines `SimpleWebAuthnBrowser`), served
// from the installed package rather than copied into public/: the file the page runs is
// always the version package.json pins, and the server's half (@simplewebauthn/server)
// moves with it. Its name carries the first 16 hex digits of its SHA-256, so it is
// cached for a year, `immutable`: an upgrade of the package is a new name, which the
// pages (the `webauthnBrowserUrl` view global) name at once.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Request, RequestHandler, Response } from 'express';

function bundleFile(): string {
  // The package's entry (esm/index.js) sits one folder under its root.
  const entry = fileURLToPath(import.meta.resolve('@simplewebauthn/browser'));
  return path.join(path.dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js');
}

/** The bundle's file and its URL, named by its content (read once, at start: about 10 kB). */
export function webAuthnBrowserAsset(): { file: string; url: string } {
  const file = bundleFile();
  const hash = createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16);
  return { file, url: `/assets/vendor/simplewebauthn-browser.${hash}.js` };
}

export function serveWebAuthnBrowser(file: string): RequestHandler {
  return function serveBundle(_req: Request, res: Response): void {
    res.locals.routePattern = '/assets/*';
    res.locals.quietLog = true;
    res.type('application/javascript');
    res.set('Cache-Control', 'public, max-age=31536000, immutable');
    res.sendFile(file, { cacheControl: false });
  };
}
