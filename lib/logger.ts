import pino, { type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { lazyRequire } from './lazy-require.js';

// Readable lines are for a terminal in development: production never loads it.
const pinoPretty = lazyRequire<typeof PinoPretty>('pino-pretty');

export type { Logger };

export interface LoggerOptions {
  /**
   * Readable lines (time, level, message, then the fields) instead of one JSON object a
   * line: for a person reading a terminal in development, never for a log collector.
   */
  pretty?: boolean;
  /** Where lines go; standard output by default (tests capture them). */
  destination?: DestinationStream;
}

/**
 * Readable output only where a person reads it: a terminal (standard output is a TTY)
 * outside production. Piped or redirected output, and production, stay JSON so that
 * collectors and scripts can parse every line.
 */
export function prettyLogsWanted(config: { isProduction: boolean }, output: { isTTY?: boolean } = process.stdout): boolean {
  return !config.isProduction && output.isTTY === true;
}

function readableMessage(line: Record<string, unknown>, messageKey: string): string {
  const raw = line[messageKey];
  const message = typeof raw === 'string' ? raw : '';
  const where = [line.method, line.path].filter((part) => typeof part === 'string').join(' ');
  if (message === 'request') return `${where} ${String(line.status)} ${String(line.durationMs)} ms`;
  return where ? `${message} (${where})` : message;
}

// One structured logger per application. Redaction is a second line of defence: code
// never logs passwords, tokens or cookies on purpose.
// `base`: fields on every line (a cluster worker's number and pid, so the interleaved
// lines of several processes can be told apart); none in a single process.
export function createLogger(level = 'info', base?: Record<string, unknown>, options: LoggerOptions = {}): Logger {
  const settings = {
    level,
    base: base ?? undefined,
    redact: {
      paths: ['password', 'newPassword', 'token', 'cookie', '*.password', '*.token', '*.cookie', 'req.headers.cookie'],
      censor: '[redacted]',
    },
  };
  if (!options.pretty) return options.destination ? pino(settings, options.destination) : pino(settings);
  // In the process, synchronously: the lines come in order with the start's notices and
  // none is lost when the server exits right after «stopped».
  const stream = pinoPretty()({
    colorize: options.destination === undefined,
    translateTime: 'SYS:HH:MM:ss',
    // A request reads «GET /admin 200 12.3 ms»; its fields are in the message, not repeated after it.
    ignore: 'pid,hostname,method,path,status,durationMs',
    messageFormat: readableMessage,
    singleLine: true,
    sync: true,
    ...(options.destination ? { destination: options.destination } : {}),
  });
  return pino(settings, stream);
}
