import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import type { Config } from '../lib/config.js';

// The browser features no page of the site uses, turned off for the site and anything
// it embeds: a script that slipped in could not ask for them. Only features Chromium and
// Firefox know (an unknown one is a console warning on every page).
const PERMISSIONS_POLICY = [
  'accelerometer=()',
  'camera=()',
  'display-capture=()',
  'geolocation=()',
  'gyroscope=()',
  'magnetometer=()',
  'microphone=()',
  'midi=()',
  'payment=()',
  'usb=()',
].join(', ');

// Scripts and styles are files under /assets: the policy allows no inline code at all.
export function securityHeaders(config: Pick<Config, 'isProduction' | 'hstsMaxAge'>): RequestHandler[] {
  const headers = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    // The full URL never leaves the site; pages whose URL carries a token send no
    // Referer at all (set by their controllers).
    referrerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
    // Sent below, only when the request came over HTTPS: helmet would send it always.
    strictTransportSecurity: false,
  });
  return [headers, transportHeaders(config)];
}

/**
 * Permissions-Policy on every answer; Strict-Transport-Security in production on a
 * request that arrived over HTTPS, directly or through the trusted proxy (req.secure
 * reads X-Forwarded-Proto only from APP_TRUST_PROXY): over plain HTTP a browser ignores
 * it, and a development site on http://localhost must never be pinned to HTTPS. No
 * includeSubDomains: the other sites of the domain are not this one's to decide.
 */
function transportHeaders(config: Pick<Config, 'isProduction' | 'hstsMaxAge'>): RequestHandler {
  const hsts = config.isProduction && config.hstsMaxAge !== null ? `max-age=${config.hstsMaxAge}` : undefined;
  return function setTransportHeaders(req: Request, res: Response, next: NextFunction): void {
    res.setHeader('Permissions-Policy', PERMISSIONS_POLICY);
    if (hsts && req.secure) res.setHeader('Strict-Transport-Security', hsts);
    next();
  };
}
