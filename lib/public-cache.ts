// The public read cache of one application (ctx.publicCache): answers of the public
// reads (a module's public JSON and HTML, lists, sitemap files) kept in memory, bounded
// in bytes (PAGE_CACHE_MB, LRU), with a bounded cache of unknown paths beside.
//
// Tags: an answer carries opaque strings naming what it shows (`item:12`, `list:0`,
// `nav`, `media:4`: each module chooses and documents its own). Never stale: every
// committed change that can alter public output is announced by a module's database
// trigger on the channel `site_public_changes` with the tags it affects; the listener
// (public-cache-listener.ts) hands each one to invalidate(), which drops every answer
// carrying one of them (and the unknown paths when UNKNOWN_PATHS_TAG is among them).
// The cache knows nothing of what a tag means. It is only used while the listener
// listens: when its connection drops, everything is forgotten and every read goes to
// the database until it listens again. A fill records the generation when it starts;
// any notification (or loss) moves the generation, so a fill that raced a change is
// answered but never stored.
//
// Read-your-writes in one process: a write committed through this app's pool is
// followed, before the next cache read, by one round trip on the listening connection.
// PostgreSQL signals listeners before it acknowledges a COMMIT and sends pending
// notifications before the answer to the next statement, so that round trip returns
// after the write's notification was handled.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { Logger } from './logger.js';
import { PublicChangeListener, type PublicChange } from './public-cache-listener.js';

export type { PublicChange } from './public-cache-listener.js';

/** One answer as stored, and as sent from the cache. */
export interface CachedAnswer {
  body: Buffer;
  contentType: string;
  /** Strong: a hash of the body, computed once when the answer is built. */
  etag: string;
  lastModified?: Date;
  /** What the answer shows, as its module names it: a change carrying any of these drops it. */
  tags: readonly string[];
  /** Not 200: the status sent (301, 410), and where a 301 leads. */
  status?: number;
  location?: string;
}

export type AnswerFacts = Omit<CachedAnswer, 'body' | 'etag'> & { etag?: string };

/** The tag a change carries when a path remembered as naming nothing may now answer (something new at a path, a redirect). */
const UNKNOWN_PATHS_TAG = 'paths';

/** What a fill learned when it started: stored only if nothing changed meanwhile. */
export interface Fill {
  readonly generation: number;
}

// What an entry costs beyond its body and key, measured: ~940 bytes of heap per answer
// (the object, its Date, tag array and ETag, the Buffer's wrapper, the LRU's own slots),
// so that PAGE_CACHE_MB bounds the memory the cache really holds; plus each tag (a
// short string and its slot).
const ENTRY_OVERHEAD = 1024;
const TAG_OVERHEAD = 32;
const NEGATIVE_OVERHEAD = 96;
// Unknown paths get a sixteenth of the budget: a flood of them cannot evict the answers.
const NEGATIVE_SHARE = 1 / 16;
// A single answer larger than this is served but not kept (a 50,000-URL sitemap file).
const MAX_ENTRY_SHARE = 1 / 8;
// Matches the statements that write, and the end of every transaction.
const WRITE_STATEMENT = /^\s*(commit|insert|update|delete|truncate|merge)\b|\b(insert\s+into|delete\s+from|update\s+"?\w+"?\s+set)\b/i;

/** `"…"`: the body's SHA-256, 128 bits of it in base64url. */
function strongEtag(body: Buffer | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

export function buildAnswer(body: string | Buffer, facts: AnswerFacts): CachedAnswer {
  const bytes = typeof body === 'string' ? ownBytes(body) : body;
  return { ...facts, body: bytes, etag: facts.etag ?? strongEtag(bytes) };
}

/**
 * The body in an allocation of its own. Buffer.from() cuts a short string's bytes from a
 * shared 8 KiB slab, and one cached answer then keeps its whole slab alive after the
 * other answers cut from it were evicted: measured, 64 MiB of small answers held 65 MiB
 * of buffers instead of 43.
 */
function ownBytes(body: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(body));
  bytes.write(body);
  return bytes;
}

export interface PublicCacheOptions {
  maxBytes: number;
  databaseUrl: string;
  logger: Logger;
  /** Back-off of the listener's reconnection (ms). */
  retry?: { minMs: number; maxMs: number };
  /** Interval of the round trip that checks the listening connection (PUBLIC_CACHE_HEARTBEAT_MS). */
  heartbeatMs?: number;
  /** Bytes of the budget left to the hit path's memos (lib/public-hits.ts): taken from the answers' share. */
  reservedBytes?: number;
  /**
   * Listen even when the cache is off (maxBytes 0): a read replica follows the changes
   * (lib/read-replica.ts), a module keeps memory true by them (registrar's followsChanges).
   */
  listen?: boolean;
}

export class PublicCache {
  readonly maxBytes: number;
  private readonly entries?: LRUCache<string, CachedAnswer>;
  private readonly negatives?: LRUCache<string, true>;
  private readonly listener?: PublicChangeListener;
  private generation = 0;
  private listening = false;
  private writeSeq = 0;
  private settledSeq = 0;
  private settling?: { seq: number; done: Promise<boolean> };
  private readonly logger: Logger;
  /** 'listening', 'lost' and 'change' (after a notification was applied): for probes and tests. */
  readonly events = new EventEmitter();

  constructor(options: PublicCacheOptions) {
    this.maxBytes = Math.max(0, Math.floor(options.maxBytes));
    this.logger = options.logger;
    if (this.maxBytes === 0 && !options.listen) return;
    if (this.maxBytes > 0) {
      const negativeBytes = Math.max(4096, Math.floor(this.maxBytes * NEGATIVE_SHARE));
      this.entries = new LRUCache<string, CachedAnswer>({
        maxSize: Math.max(1, this.maxBytes - negativeBytes - (options.reservedBytes ?? 0)),
        maxEntrySize: Math.max(1, Math.floor(this.maxBytes * MAX_ENTRY_SHARE)),
        sizeCalculation: (answer, key) =>
          answer.body.length + key.length + ENTRY_OVERHEAD + answer.tags.reduce((sum, tag) => sum + TAG_OVERHEAD + tag.length, 0),
      });
      this.negatives = new LRUCache<string, true>({ maxSize: negativeBytes, sizeCalculation: (_value, key) => key.length + NEGATIVE_OVERHEAD });
    }
    this.listener = new PublicChangeListener({
      databaseUrl: options.databaseUrl,
      logger: options.logger,
      retry: options.retry,
      heartbeatMs: options.heartbeatMs,
      onListening: () => this.startListening(),
      onLost: () => this.stopListening(),
      onChange: (change) => this.invalidate(change),
    });
    this.listener.start();
  }

  /** The largest answer kept; a larger one is served but not stored. */
  get maxEntryBytes(): number {
    return this.entries ? Math.max(1, Math.floor(this.maxBytes * MAX_ENTRY_SHARE)) - ENTRY_OVERHEAD : 0;
  }

  /** Off (PAGE_CACHE_MB=0), or not listening: every read goes to the database. */
  get usable(): boolean {
    return this.listening && this.entries !== undefined;
  }

  /** The listening connection, for /readyz: 'off' when nothing listens (no cache, no replica, no module following changes). */
  get listenerState(): 'listening' | 'connecting' | 'reconnecting' | 'off' {
    return this.listener?.state ?? 'off';
  }

  /** True while every committed change reaches this process (also with the cache off, when asked to listen). */
  get hearsChanges(): boolean {
    return this.listening;
  }

  get stats(): { entries: number; bytes: number; negatives: number; negativeBytes: number; listening: boolean } {
    return {
      entries: this.entries?.size ?? 0,
      bytes: this.entries?.calculatedSize ?? 0,
      negatives: this.negatives?.size ?? 0,
      negativeBytes: this.negatives?.calculatedSize ?? 0,
      listening: this.listening,
    };
  }

  /** Counts the writes this app's pool commits (see the file's header). */
  watchWrites(db: Knex): void {
    if (!this.listener) return;
    const wrote = new Set<string>();
    db.on('query', (query: { sql?: string; __knexUid?: string }) => {
      if (query.__knexUid && query.sql && WRITE_STATEMENT.test(query.sql)) {
        wrote.add(query.__knexUid);
        this.writeSeq++;
      }
    });
    const pool = (db.client as { pool?: { on(event: 'release', listener: (resource: { __knexUid?: string }) => void): void } }).pool;
    pool?.on('release', (connection) => {
      if (connection.__knexUid && wrote.delete(connection.__knexUid)) this.writeSeq++;
    });
  }

  /**
   * Waits until the notifications of this app's committed writes have been handled;
   * true when the cache may be used. Costs nothing when nothing was written since.
   */
  async ready(): Promise<boolean> {
    if (!this.listening) return false;
    const target = this.writeSeq;
    while (this.listening && this.settledSeq < target) {
      if (!this.settling) {
        const seq = this.writeSeq;
        const done = this.listener!.roundTrip().then((ok) => {
          if (ok && seq > this.settledSeq) this.settledSeq = seq;
          return ok;
        });
        this.settling = { seq, done: done.finally(() => (this.settling = undefined)) };
      }
      // A failed round trip means the connection is going: this read does without the
      // cache (the loss empties it as soon as it is reported), never loops on it.
      if (!(await this.settling.done)) return false;
    }
    return this.listening;
  }

  /**
   * Resolves once every notification committed before the call has been handled, from
   * any process: one round trip on the listening connection (PostgreSQL sends pending
   * notifications before the answer). False when the cache does not listen.
   */
  async caughtUp(): Promise<boolean> {
    return this.listening && this.listener ? this.listener.roundTrip() : false;
  }

  /**
   * True when the cache is usable and this app's committed writes have all been heard:
   * ready() would answer true at once, without a round trip (the hit path's test).
   */
  get settled(): boolean {
    return this.listening && this.entries !== undefined && this.settledSeq >= this.writeSeq;
  }

  /** The stored answer without counting a use (for checks, not for answers). */
  peek(key: string): CachedAnswer | undefined {
    return this.listening ? this.entries?.peek(key) : undefined;
  }

  /** The stored answer, when the cache is usable (call ready() first). */
  get(key: string): CachedAnswer | undefined {
    return this.listening ? this.entries?.get(key) : undefined;
  }

  /** True when `path` is known to name nothing public. */
  isUnknown(path: string): boolean {
    return this.listening ? (this.negatives?.get(path) ?? false) : false;
  }

  /** Marks the start of a fill: call it after ready(), before the fill's first statement. */
  begin(): Fill {
    return { generation: this.generation };
  }

  store(fill: Fill, key: string, answer: CachedAnswer): void {
    if (this.listening && fill.generation === this.generation) this.entries?.set(key, answer);
  }

  storeUnknown(fill: Fill, path: string): void {
    if (this.listening && fill.generation === this.generation) this.negatives?.set(path, true);
  }

  /** The backend process id of the listening connection (pg_terminate_backend in tests, diagnostics). */
  get listenerPid(): number | undefined {
    return this.listening ? this.listener?.pid : undefined;
  }

  /** Drops what `change` can affect. */
  invalidate(change: PublicChange): void {
    this.drop(change);
    this.events.emit('change', change);
  }

  private drop(change: PublicChange): void {
    this.generation++;
    if (!this.entries || !this.negatives) return;
    if (change.all) {
      this.clear();
      return;
    }
    const tags = new Set(change.tags);
    if (tags.size === 0) return;
    if (tags.has(UNKNOWN_PATHS_TAG)) this.negatives.clear();
    const doomed: string[] = [];
    for (const [key, answer] of this.entries.entries()) {
      if (answer.tags.some((tag) => tags.has(tag))) doomed.push(key);
    }
    for (const key of doomed) this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries?.clear();
    this.negatives?.clear();
  }

  async close(): Promise<void> {
    this.listening = false;
    this.clear();
    await this.listener?.close();
  }

  private startListening(): void {
    // Whatever was committed before now reached no listener: the cache is empty, and
    // fills that started before this point are not stored.
    this.clear();
    this.settledSeq = this.writeSeq;
    this.listening = true;
    this.logger.info({ maxBytes: this.maxBytes }, 'public cache: listening for changes');
    this.events.emit('listening');
  }

  private stopListening(): void {
    this.listening = false;
    this.clear();
    this.events.emit('lost');
  }
}
