// The hit path (PUBLIC_HIT_PATH, on by default): a GET or HEAD whose answer is in the
// public read cache is answered before Express's pipeline, with the headers that
// pipeline sent when it last answered the same URL.
//
// The pipeline teaches it: each time a public read answers from the cache or stores a
// fill (sendAnswer), the URL is remembered with the cache key, the answer, the status
// and every header the pipeline set (security headers, content type, cache control,
// validators, length) in their order and casing, minus the per-request ones. A later
// request for the same URL is answered from that memo only when everything the
// pipeline would have looked at is the same or is redone here:
//   - the answer under the key is still the very object remembered (a change dropped
//     it, a fill replaced it, the listener was lost: then the memo is ignored);
//   - this process's own writes have been heard (PublicCache.settled: otherwise ready()
//     would make a round trip first);
//   - the host is one the host check accepts (else its 421);
//   - the scheme (HTTPS directly or through the trusted proxy) is the one remembered
//     (Strict-Transport-Security depends on it): it is part of the memo's key;
//   - conditional requests get the 304 Express's res.send gives (the `fresh` module
//     it uses), with the headers it keeps;
// and it does what the general pipeline does around every request: an X-Request-Id,
// the request's log line and its metrics under the route pattern. Everything else (no
// memo, a stale memo, another method, a refused host) goes to the pipeline unchanged.
// Public rows read no session and set no cookie, so cookies change nothing; an answer
// that set one is never remembered.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';
import fresh from 'fresh';
import { LRUCache } from 'lru-cache';
import type { AppContext } from './context.js';
import type { CachedAnswer, PublicCache } from './public-cache.js';

/** What the pipeline sent for one URL: replayed as is. */
interface Hit {
  key: string;
  answer: CachedAnswer;
  status: number;
  /** Flat `[name, value, …]` for GET, as the pipeline sent them: X-Request-Id first (its value set per request), no Date (Node's). */
  get: string[];
  /** The same for HEAD (a redirect's length is Node's own on GET only). */
  head: string[];
  /** The 304's, when the answer carries validators (res.send): without the body's headers. */
  notModified?: string[];
  /** The answer's Last-Modified as sent, for the freshness check. */
  lastModified?: string;
  route: string;
  quietLog: boolean;
}

const REQUEST_ID = 'X-Request-Id';
// Set per request or per connection, never replayed.
const NOT_REPLAYED = new Set(['x-request-id', 'date', 'connection', 'keep-alive']);
// What Express's res.send removes from a 304.
const BODY_HEADERS = new Set(['content-type', 'content-length', 'transfer-encoding']);
// What a remembered URL costs beyond its characters (the memo, its three header arrays), measured.
const HIT_OVERHEAD = 640;
const UNMATCHED_ROUTE = 'unmatched';

/** The URLs answered from the cache, bounded in bytes (a share of PAGE_CACHE_MB, see PublicCache). */
export class PublicHits {
  private readonly hits: LRUCache<string, Hit>;
  /** Requests answered by the hit path since the start (tests, diagnostics). */
  answered = 0;

  constructor(
    private readonly cache: PublicCache,
    maxBytes: number,
  ) {
    this.hits = new LRUCache<string, Hit>({ maxSize: Math.max(1, maxBytes), sizeCalculation: (_hit, url) => url.length + HIT_OVERHEAD });
    // Memos of dropped answers are useless (never replayed): freed with them.
    cache.events.on('change', () => this.prune());
    cache.events.on('lost', () => this.hits.clear());
  }

  /** Remembers what the pipeline just sent for this request, when it can be replayed. */
  learn(req: Request, res: Response, key: string, answer: CachedAnswer): void {
    const status = answer.status ?? 200;
    if ((req.method !== 'GET' && req.method !== 'HEAD') || res.statusCode !== status) return;
    // Only an answer the cache holds (a fill that raced a change was not stored).
    if (this.cache.peek(key) !== answer) return;
    const sent: string[] = [];
    // Node has it on every outgoing message; @types/node declares it on requests only.
    for (const name of (res as Response & { getRawHeaderNames(): string[] }).getRawHeaderNames()) {
      const lower = name.toLowerCase();
      if (lower === 'set-cookie') return;
      if (NOT_REPLAYED.has(lower)) continue;
      const value = res.getHeader(name);
      if (Array.isArray(value)) for (const each of value) sent.push(name, each);
      else if (value !== undefined) sent.push(name, String(value));
    }
    const hasLength = sent.some((name, index) => index % 2 === 0 && name.toLowerCase() === 'content-length');
    const hit: Hit = {
      key,
      answer,
      status,
      // res.end(body) without a length: Node adds it on GET, not on HEAD.
      get: [REQUEST_ID, '', ...sent, ...(hasLength ? [] : ['Content-Length', String(answer.body.length)])],
      head: [REQUEST_ID, '', ...sent],
      notModified:
        answer.status === undefined
          ? [REQUEST_ID, '', ...sent.filter((_value, index) => !BODY_HEADERS.has(sent[index - (index % 2)].toLowerCase()))]
          : undefined,
      lastModified: answer.lastModified?.toUTCString(),
      route: res.locals.routePattern ?? UNMATCHED_ROUTE,
      quietLog: res.locals.quietLog ?? false,
    };
    this.hits.set(memoKey(req.secure, req.originalUrl), hit);
  }

  /** The memo for this URL while its answer is still the cache's. */
  find(secure: boolean, url: string): Hit | undefined {
    const key = memoKey(secure, url);
    const hit = this.hits.get(key);
    if (!hit) return undefined;
    if (this.cache.get(hit.key) === hit.answer) return hit;
    this.hits.delete(key);
    return undefined;
  }

  get size(): number {
    return this.hits.size;
  }

  private prune(): void {
    for (const [url, hit] of this.hits.entries()) {
      if (this.cache.peek(hit.key) !== hit.answer) this.hits.delete(url);
    }
  }
}

function memoKey(secure: boolean, url: string): string {
  return secure ? `s${url}` : url;
}

interface RequestFacts {
  /** The trusted proxy's test (Express's compiled `trust proxy`). */
  trust: (address: string | undefined, hop: number) => boolean;
  /** The host check's answer for a Host (or trusted X-Forwarded-Host) value. */
  ownHost: (host: string | undefined) => boolean;
}

/** req.secure as Express computes it (the trusted proxy's X-Forwarded-Proto). */
function isSecure(req: IncomingMessage, trust: RequestFacts['trust']): boolean {
  const direct = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  if (!trust(req.socket.remoteAddress, 0)) return direct === 'https';
  const header = headerValue(req.headers['x-forwarded-proto']) || direct;
  const comma = header.indexOf(',');
  return (comma === -1 ? header.trim() : header.slice(0, comma).trim()) === 'https';
}

/** req.host as Express computes it (the trusted proxy's X-Forwarded-Host). */
function hostOf(req: IncomingMessage, trust: RequestFacts['trust']): string | undefined {
  const forwarded = headerValue(req.headers['x-forwarded-host']);
  if (!forwarded || !trust(req.socket.remoteAddress, 0)) return req.headers.host || undefined;
  const comma = forwarded.indexOf(',');
  return comma === -1 ? forwarded : forwarded.slice(0, comma).trimEnd();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Puts the hit path in front of `app`'s pipeline: Express's app.handle, which both
 * node:http (the app as the server's listener) and the tests' clients call.
 */
export function answerHitsFirst(app: Express, ctx: AppContext, hits: PublicHits, ownHost: RequestFacts['ownHost']): void {
  const pipeline = app as unknown as { handle(req: IncomingMessage, res: ServerResponse, next?: unknown): void };
  const handle = pipeline.handle.bind(app);
  const trust = app.get('trust proxy fn') as RequestFacts['trust'];
  const { publicCache, metrics, logger } = ctx;
  pipeline.handle = function handleHitFirst(req, res, next) {
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || !publicCache.settled) return handle(req, res, next);
    const url = req.url ?? '/';
    const hit = hits.find(isSecure(req, trust), url);
    if (!hit || !ownHost(hostOf(req, trust))) return handle(req, res, next);
    const started = process.hrtime.bigint();
    hits.answered++;
    const tally = metrics.startRequest();
    const requestId = randomUUID();
    const { answer } = hit;
    let status = hit.status;
    let headers = method === 'HEAD' ? hit.head : hit.get;
    if (hit.notModified && fresh(req.headers, { etag: answer.etag, 'last-modified': hit.lastModified })) {
      status = 304;
      headers = hit.notModified;
    }
    // The pipeline sends X-Request-Id first; what a graceful stop set (Connection) is kept by writeHead.
    const sent = headers.slice();
    sent[1] = requestId;
    res.writeHead(status, sent);
    if (method === 'HEAD' || status === 304) res.end();
    else res.end(answer.body);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    metrics.endRequest(tally, method, hit.route, status, seconds);
    const level = hit.quietLog ? 'debug' : 'info';
    if (logger.isLevelEnabled(level)) {
      logger[level]({ requestId, method, path: url.split('?')[0], status, durationMs: Math.round(seconds * 1e4) / 10 }, 'request');
    }
  };
}
