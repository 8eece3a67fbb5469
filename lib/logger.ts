import pino, { type Logger } from 'pino';

export type { Logger };

// One structured logger per application. Redaction is a second line of defence: code
// never logs passwords, tokens or cookies on purpose.
export function createLogger(level = 'info'): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: ['password', 'newPassword', 'token', 'cookie', '*.password', '*.token', '*.cookie', 'req.headers.cookie'],
      censor: '[redacted]',
    },
  });
}
