import pino from 'pino';

// One structured logger for the process. Redaction is a second line of defence: code
// never logs passwords, tokens or cookies on purpose.
export const logger = pino({
  level: 'info',
  base: undefined,
  redact: {
    paths: ['password', 'newPassword', 'token', 'cookie', '*.password', '*.token', '*.cookie', 'req.headers.cookie'],
    censor: '[redacted]',
  },
});

export function setLogLevel(level: string): void {
  logger.level = level;
}
