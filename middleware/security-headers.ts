import helmet from 'helmet';

// Scripts and styles are files under /assets: the policy allows no inline code at all.
export function securityHeaders() {
  return helmet({
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
    strictTransportSecurity: false,
  });
}
