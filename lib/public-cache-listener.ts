// The connection that LISTENs for public changes: a pg client of its own, never one of
// the pool's (a pooled connection is shared, and a pooler in transaction mode would drop
// the LISTEN). When it fails it reports the loss at once (the cache empties and is
// bypassed) and reconnects with an exponential back-off; it reports `listening` only
// once its LISTEN has been acknowledged.
//
// A connection can also hang without failing: a frozen backend, a half-open TCP
// connection (a peer gone without a word; TCP keep-alive takes hours to notice). Nothing
// arrives, nothing errs, and the cache was stale without limit (1,112 stale reads of
// 1,112 over 15 s, /readyz 200, no log). So every `heartbeatMs` the connection answers a
// round trip, and one not answered within half of that counts as a loss: the socket is
// destroyed (a hung peer would never acknowledge a polite end) and the usual path
// follows. A change missed that way is served stale for at most 1.5 × heartbeatMs.
import pg from 'pg';
import type { Logger } from './logger.js';

const PUBLIC_CHANGES_CHANNEL = 'site_public_changes';

/** A notification's payload, as the modules' triggers send it. */
export interface PublicChange {
  /** The tags of the answers this change may alter (opaque: each module names its own). */
  tags?: string[];
  /** Everything. */
  all?: boolean;
  /** pg_current_wal_lsn() when the change was written. */
  lsn?: string;
}

// A tag is short: a longer string is not one a trigger sent.
const MAX_TAG_LENGTH = 200;

/** A payload as sent by the triggers; anything unreadable means "everything". */
function parseChange(payload: string | undefined): PublicChange {
  try {
    const raw = JSON.parse(payload ?? '') as Record<string, unknown>;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw) || raw.all === true) return { all: true };
    const lsn = typeof raw.lsn === 'string' ? raw.lsn : undefined;
    // No tags and nothing else: a change that alters no answer (a marker). Anything else
    // without tags (a payload of another version) is read as everything.
    if (raw.tags === undefined) return Object.keys(raw).every((key) => key === 'lsn') ? { tags: [], lsn } : { all: true };
    if (!Array.isArray(raw.tags)) return { all: true };
    const tags = raw.tags.filter((tag): tag is string => typeof tag === 'string' && tag.length > 0 && tag.length <= MAX_TAG_LENGTH);
    return { tags, lsn };
  } catch {
    return { all: true };
  }
}

/** How long close() waits for the server to acknowledge the end before dropping the socket. */
const CLOSE_TIMEOUT_MS = 1000;

/** pg has no public way to drop a connection without the server's acknowledgement. */
function destroySocket(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

export interface ListenerOptions {
  databaseUrl: string;
  logger: Logger;
  retry?: { minMs: number; maxMs: number };
  /** The round trip's interval (PUBLIC_CACHE_HEARTBEAT_MS); late after half of it. */
  heartbeatMs?: number;
  onListening(): void;
  onLost(): void;
  onChange(change: PublicChange): void;
}

export class PublicChangeListener {
  private client?: pg.Client;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private failures = 0;
  private listening = false;
  private backendPid?: number;
  private heartbeat?: NodeJS.Timeout;
  private everListened = false;

  constructor(private readonly options: ListenerOptions) {}

  start(): void {
    void this.connect();
  }

  /** 'listening'; 'connecting' until the first LISTEN; 'reconnecting' after a loss, until it listens again. */
  get state(): 'listening' | 'connecting' | 'reconnecting' {
    if (this.listening) return 'listening';
    return this.everListened ? 'reconnecting' : 'connecting';
  }

  /** The listening connection's backend process id, while connected. */
  get pid(): number | undefined {
    return this.listening ? this.backendPid : undefined;
  }

  /** One statement on the listening connection (see PublicCache.ready()); false if it failed. */
  async roundTrip(): Promise<boolean> {
    const client = this.client;
    if (!client || !this.listening) return false;
    try {
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    if (!client) return;
    // A hung peer never acknowledges the end: the stop would wait for it until killed.
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      client.end().then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    if (!ended) destroySocket(client);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const { logger } = this.options;
    const client = new pg.Client({ connectionString: this.options.databaseUrl, application_name: 'site-core-listener', keepAlive: true });
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel === PUBLIC_CHANGES_CHANNEL && client === this.client) this.options.onChange(parseChange(message.payload));
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${PUBLIC_CHANGES_CHANNEL}`);
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      this.backendPid = rows[0]?.pid;
    } catch (error) {
      this.lost(client, error as Error);
      return;
    }
    if (client !== this.client || this.closed) return;
    if (this.failures > 0) logger.info({ attempts: this.failures }, 'public cache: listening again; the cache is back in use');
    this.failures = 0;
    this.listening = true;
    this.everListened = true;
    this.options.onListening();
    this.beatAfterPause(client);
  }

  private beatAfterPause(client: pg.Client): void {
    const intervalMs = this.options.heartbeatMs ?? 2000;
    this.heartbeat = setTimeout(() => void this.beat(client, intervalMs), intervalMs);
    this.heartbeat.unref();
  }

  /** One round trip on the listening connection; late, the connection counts as lost. */
  private async beat(client: pg.Client, intervalMs: number): Promise<void> {
    if (client !== this.client || !this.listening) return;
    const deadlineMs = Math.ceil(intervalMs / 2);
    let late: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      client.query('SELECT 1').then(
        () => true,
        // A failed statement: the connection's own error or end event reports the loss.
        () => undefined,
      ),
      new Promise<false>((resolve) => (late = setTimeout(() => resolve(false), deadlineMs))),
    ]);
    clearTimeout(late);
    if (client !== this.client) return;
    if (answered === false) {
      this.lost(client, new Error(`no answer to a round trip within ${deadlineMs} ms (PUBLIC_CACHE_HEARTBEAT_MS ${intervalMs})`));
      return;
    }
    if (answered) this.beatAfterPause(client);
  }

  private lost(client: pg.Client, error?: Error): void {
    if (client !== this.client) return;
    this.client = undefined;
    const wasListening = this.listening;
    this.listening = false;
    clearTimeout(this.heartbeat);
    // Before anything else: from now on no notification can reach us.
    this.options.onLost();
    // A hung peer never answers a Terminate: destroying the socket fails whatever waits
    // on it (a ready() round trip) at once.
    destroySocket(client);
    client.end().catch(() => undefined);
    if (this.closed) return;
    const { minMs, maxMs } = this.options.retry ?? { minMs: 100, maxMs: 10_000 };
    const delay = Math.min(maxMs, minMs * 2 ** Math.min(this.failures, 16)) * (0.75 + Math.random() * 0.5);
    this.failures++;
    if (wasListening || this.failures === 1) {
      this.options.logger.warn(
        { err: error?.message, retryMs: Math.round(delay) },
        'public cache: the listening connection was lost; the cache is bypassed until it listens again',
      );
    }
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref();
  }
}
