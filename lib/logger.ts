import pino, { type Logger } from 'pino';

export type { Logger };

// One structured logger per application. Redaction is a second line of defence: code
// never logs passwords, tokens or cookies on purpose.
// `base`: fields on every line (a cluster worker's number and pid, so the interleaved
// lines of several processes can be told apart); none in a single process.
export function createLogger(level = 'info', base?: Record<string, unknown>): Logger {
  return pino({
    level,
    base: base ?? undefined,
    redact: {
      paths: ['password', 'newPassword', 'token', 'cookie', '*.password', '*.token', '*.cookie', 'req.headers.cookie'],
      censor: '[redacted]',
    },
  });
}
