// GET /sitemap.xml (an index of the files) and GET /sitemap-<n>.xml (at most `perFile`
// URLs each). A file is written to the response one batch of rows at a time, never
// built whole: memory stays one batch per request whatever the size of the site. Every
// batch statement passes through one gate per application, so any number of crawlers
// share a fixed slice of the database while page reads keep their pool and their time.
// Both answer 304 to If-None-Match / If-Modified-Since from the tree's version (one
// primary-key read), before any other statement. A file the public read cache holds
// (any page change drops them all) is answered from it, 304 included, with no statement.
// Their statements run on the read replica when it is fresh enough (publicReads()).
import type { Gate } from '../../lib/gate.js';
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import Joi from 'joi';
import { publicReads, type AppContext } from '../../lib/context.js';
import { text } from '../../lib/schema-primitives.js';
import { siteLook } from '../../models/settings/store.js';
import { sitemapBatch, sitemapFileCount, sitemapRange, SITEMAP_MAX_URLS } from '../../models/pages/sitemap.js';
import { readTreeState, type TreeState } from '../../models/pages/tree-state.js';
import type { AnyCall, Call } from '../../routes/define.js';
import { absoluteUrl } from '../../services/pages-rendering.js';
import { notFoundPage } from './site.js';
import { buildAnswer } from '../../lib/public-cache.js';
import { PAGES_TAG } from '../../models/pages/cache-tags.js';
import { sendAnswer } from './public-answers.js';

const SITEMAP_TYPE = 'application/xml; charset=utf-8';
const SITEMAP_CACHE_CONTROL = 'no-cache';

export interface SitemapOptions {
  /** URLs per file (the protocol allows 50,000). */
  perFile: number;
  /** Rows per statement while a file is written. */
  batchSize: number;
  /** Sitemap statements running at once, for the whole application. */
  concurrency: number;
  /** Share of the time a slot may spend running statements (0 < duty ≤ 1): after a
   *  statement of t ms, its slot rests t × (1 / duty − 1) ms before the next one. */
  duty: number;
}

export const DEFAULT_SITEMAP_OPTIONS: SitemapOptions = { perFile: SITEMAP_MAX_URLS, batchSize: 500, concurrency: 1, duty: 0.5 };

/** `n` of /sitemap-<n>.xml: plain digits become a number; anything else stays text (404). */
export const sitemapParams = Joi.object<{ n: number | string }>({
  n: Joi.alternatives(
    Joi.string()
      .pattern(/^[1-9][0-9]{0,8}$/)
      .custom((value: string) => Number(value)),
    text().max(200),
  ).required(),
});

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const xml = (value: string) => value.replace(/[&<>"']/g, (char) => XML_ENTITIES[char]);
// The stylesheet a browser applies to show the files as a table (public/sitemap.xsl); crawlers ignore it.
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<?xml-stylesheet type="text/xsl" href="/assets/sitemap.xsl"?>\n';
const NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';

function entry(tag: 'url' | 'sitemap', loc: string, lastmod?: Date): string {
  return `  <${tag}><loc>${xml(loc)}</loc>${lastmod ? `<lastmod>${new Date(lastmod).toISOString()}</lastmod>` : ''}</${tag}>\n`;
}

/**
 * Sets ETag and Last-Modified from the tree's version (and what else shapes the bytes:
 * the base URL, the file size, which file); true when the client's copy is current
 * and a 304 went out.
 */
function etagOf(ctx: AppContext, state: TreeState, options: SitemapOptions, name: string, home: number | null): string {
  // The chosen home page is listed as `/`: choosing another changes the files, not the tree.
  const shape = createHash('sha256').update(`${ctx.config.baseUrl}\n${options.perFile}\n${name}\n${home}`).digest('base64url').slice(0, 16);
  return `"${state.version}-${state.changedAt.getTime().toString(36)}-${shape}"`;
}

function answeredFromCache(ctx: AppContext, call: AnyCall, state: TreeState, options: SitemapOptions, name: string, home: number | null): boolean {
  const { req, res } = call;
  res.set({
    ETag: etagOf(ctx, state, options, name, home),
    'Last-Modified': state.changedAt.toUTCString(),
    'Cache-Control': SITEMAP_CACHE_CONTROL,
  });
  if (!req.fresh) return false;
  res.status(304).end();
  return true;
}

/** Resolves once the response can take more, or is gone. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

const INDEX_KEY = 'sitemap:index';

// GET /sitemap.xml
export async function serveSitemapIndex(options: SitemapOptions, gate: Gate, call: Call): Promise<void> {
  const { ctx, res } = call;
  const cache = ctx.publicCache;
  const cached = (await cache.ready()) ? cache.get(INDEX_KEY) : undefined;
  if (cached) return sendAnswer(ctx, res, INDEX_KEY, cached, SITEMAP_CACHE_CONTROL);
  const started = cache.begin();
  const reads = await publicReads(ctx);
  const state = await readTreeState(reads);
  if (answeredFromCache(ctx, call, state, options, 'index', null)) return;
  const files = await gate.run(() => sitemapFileCount(reads, options.perFile));
  let body = `${XML_HEAD}<sitemapindex xmlns="${NAMESPACE}">\n`;
  for (let n = 1; n <= files; n++) body += entry('sitemap', absoluteUrl(ctx.config.baseUrl, `/sitemap-${n}.xml`), state.changedAt);
  const answer = buildAnswer(`${body}</sitemapindex>\n`, {
    contentType: SITEMAP_TYPE,
    etag: etagOf(ctx, state, options, 'index', null),
    lastModified: state.changedAt,
    tags: [PAGES_TAG],
  });
  cache.store(started, INDEX_KEY, answer);
  sendAnswer(ctx, res, INDEX_KEY, answer, SITEMAP_CACHE_CONTROL);
}

// GET /sitemap-<n>.xml
export async function serveSitemapFile(options: SitemapOptions, gate: Gate, call: Call<{ n: number | string }>): Promise<void> {
  const { ctx, req, res } = call;
  const n = call.params.n;
  if (typeof n !== 'number') return notFoundPage(res);
  const cache = ctx.publicCache;
  const key = `sitemap:${n}`;
  const cached = (await cache.ready()) ? cache.get(key) : undefined;
  if (cached) return sendAnswer(ctx, res, key, cached, SITEMAP_CACHE_CONTROL);
  const started = cache.begin();
  const reads = await publicReads(ctx);
  const state = await readTreeState(reads);
  // The same version cannot have lost the file: a 304 needs nothing else.
  const chosenHome = (await siteLook(reads)).home_page_id;
  if (answeredFromCache(ctx, call, state, options, `file-${n}`, chosenHome)) return;
  const range = await gate.run(() => sitemapRange(reads, n, chosenHome, options.perFile));
  if (!range) {
    res.removeHeader('ETag');
    res.removeHeader('Last-Modified');
    return notFoundPage(res);
  }
  // Written in full: res.send() would add the charset, a streamed answer must say it.
  res.set('Content-Type', 'application/xml; charset=utf-8');
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  let closed = false;
  res.once('close', () => (closed = true));
  // A copy for the cache while it stays small enough to be kept (a 50,000-URL file is not).
  let copy: string[] | undefined = cache.usable ? [] : undefined;
  let copied = 0;
  // Once the client is gone, nothing more is written nor waited for (no 'close' comes twice).
  const write = async (chunk: string) => {
    if (copy) {
      copied += Buffer.byteLength(chunk);
      if (copied <= cache.maxEntryBytes) copy.push(chunk);
      else copy = undefined;
    }
    if (!closed && !res.write(chunk) && !closed) await drained(res);
  };
  const base = ctx.config.baseUrl;
  await write(`${XML_HEAD}<urlset xmlns="${NAMESPACE}">\n`);
  if (range.withHome) await write(entry('url', absoluteUrl(base, '/')));
  for (let after = 0; !closed;) {
    const rows = await gate.run(() => sitemapBatch(reads, range, after, options.batchSize));
    let chunk = '';
    for (const row of rows) {
      if (row.url !== null) chunk += entry('url', absoluteUrl(base, row.url), row.updated_at);
    }
    if (chunk) await write(chunk);
    if (rows.length < options.batchSize) break;
    after = rows[rows.length - 1].id;
  }
  if (closed) return;
  res.end('</urlset>\n');
  if (copy) {
    copy.push('</urlset>\n');
    const answer = buildAnswer(copy.join(''), {
      contentType: SITEMAP_TYPE,
      etag: etagOf(ctx, state, options, `file-${n}`, chosenHome),
      lastModified: state.changedAt,
      tags: [PAGES_TAG],
    });
    cache.store(started, key, answer);
  }
}
