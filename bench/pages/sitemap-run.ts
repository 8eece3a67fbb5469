// Benchmark of the sitemap (issue: hardening, item 17). On a tree of 100,000 pages
// (depth up to 20), against the real application in its own process (production
// settings):
//   1. one crawl of the whole sitemap alone (the index, then every file): time, bytes,
//      URLs, files;
//   2. rounds (3) of: page reads alone (a public HTML page at depth 5, at a fixed rate)
//      → p50/p99; then the same page reads while `--crawlers` clients (20) crawl the
//      whole sitemap over and over, in parallel → p50/p99, and the URLs they received;
//      the server's peak RSS;
//   3. the same crawls with If-None-Match: every answer a 304.
// Target: the median p99 under the crawlers at most twice the median idle p99.
//
//   npx tsx bench/pages/sitemap-run.ts [--duration 15] [--rate 100] [--crawlers 20] [--rounds 3] [--pages 100000] [--node <path>]
//   (BENCH_DURATION, BENCH_RATE, BENCH_CRAWLERS, BENCH_ROUNDS, BENCH_PAGES, BENCH_NODE work too; the
//   database is a throw-away one, see bench/support.ts.)
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { option, scratchDatabase } from '../support.js';
import { seedPageTree } from './seed.js';
import { nodeVersion, startServer, stopServer, type RunningServer } from './servers.js';

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const duration = Number(option('duration', 'BENCH_DURATION', '15'));
const rate = Number(option('rate', 'BENCH_RATE', '100'));
const crawlers = Number(option('crawlers', 'BENCH_CRAWLERS', '20'));
const roundCount = Number(option('rounds', 'BENCH_ROUNDS', '3'));
const TOTAL_PAGES = Number(option('pages', 'BENCH_PAGES', '100000'));
// app-server.ts's BASE_URL: the sitemap's absolute URLs start with it.
const SITE_BASE = 'http://bench.local';

/** The server's resident memory, sampled every 100 ms; `peak` since the last reset. */
function rssSampler(pid: number) {
  const read = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  let peak = read();
  const timer = setInterval(() => (peak = Math.max(peak, read())), 100);
  return {
    now: read,
    peak: () => peak,
    reset: () => (peak = read()),
    stop: () => clearInterval(timer),
  };
}

interface Fetched {
  status: number;
  bytes: number;
  urls: number;
  locs: string[];
}

/** Received so far by every crawler (counted as bytes arrive, so a crawl cut short counts too). */
const received = { urls: 0, bytes: 0 };

/** Reads a body as it arrives, counting bytes and `</url>`; keeps the `<loc>`s of an index only. */
async function fetchCounting(url: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Fetched> {
  const res = await fetch(url, { headers, signal });
  const result: Fetched = { status: res.status, bytes: 0, urls: 0, locs: [] };
  if (!res.body) return result;
  const isIndex = url.endsWith('/sitemap.xml');
  const decoder = new TextDecoder();
  // The end of the previous chunk, so a `</url>` cut in two is counted once.
  let carry = '';
  let index = '';
  for await (const chunk of res.body) {
    result.bytes += chunk.byteLength;
    received.bytes += chunk.byteLength;
    const fresh = decoder.decode(chunk, { stream: true });
    const urls = (carry + fresh).split('</url>').length - 1;
    result.urls += urls;
    received.urls += urls;
    carry = fresh.length >= 5 ? fresh.slice(-5) : (carry + fresh).slice(-5);
    if (isIndex) index += fresh;
  }
  if (isIndex) result.locs = [...index.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]);
  return result;
}

interface Crawl {
  ms: number;
  bytes: number;
  urls: number;
  files: number;
  notModified: number;
}

/** The index, then each file it lists, one after the other (as a crawler reads them). */
async function crawl(base: string, conditional: Map<string, string> | null, signal?: AbortSignal): Promise<Crawl> {
  const started = performance.now();
  const result: Crawl = { ms: 0, bytes: 0, urls: 0, files: 0, notModified: 0 };
  const get = async (url: string) => {
    const headers: Record<string, string> = {};
    const etag = conditional?.get(url);
    // fetch() adds `Cache-Control: no-cache` to a conditional request (an end-to-end
    // reload, which no server answers with a 304) unless the request names its own.
    if (etag) Object.assign(headers, { 'If-None-Match': etag, 'Cache-Control': 'max-age=0' });
    const fetched = await fetchCounting(url, headers, signal);
    if (fetched.status === 304) result.notModified++;
    result.bytes += fetched.bytes;
    result.urls += fetched.urls;
    return fetched;
  };
  const index = await get(`${base}/sitemap.xml`);
  // A 304 index has no body: the crawler asks again for the files it knows.
  const files = conditional ? [...conditional.keys()].filter((url) => !url.endsWith('/sitemap.xml')) : index.locs;
  for (const loc of files) {
    await get(loc.replace(SITE_BASE, base));
    result.files++;
  }
  result.ms = performance.now() - started;
  return result;
}

interface Probe {
  p50: number;
  p99: number;
  max: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function probe(url: string): Promise<Probe> {
  const result = await autocannon({ url, connections: 4, overallRate: rate, duration });
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function main(): Promise<void> {
  console.log(`server on Node ${await nodeVersion(nodeBinary)}; page reads at ${rate} req/s for ${duration} s; ${crawlers} crawlers`);
  const database = await scratchDatabase('pages-sitemap-bench');
  let server: RunningServer | undefined;
  try {
    const tree = await seedPageTree(database.url, TOTAL_PAGES);
    server = await startServer(nodeBinary, 'app-server.ts', { DATABASE_URL: database.url, BENCH_DATA_DIR: database.dataDir, NODE_ENV: 'production' });
    const base = `http://127.0.0.1:${server.port}`;
    const pageUrl = `${base}/${tree.paths[5]}`;
    const rss = rssSampler(server.child.pid!);
    await autocannon({ url: pageUrl, connections: 4, duration: 2 }); // warm-up
    const rssStart = rss.now();

    rss.reset();
    const alone = await crawl(base, null);
    const rssAlone = rss.peak();

    // Rounds of page reads alone, then under every crawler reading the whole sitemap
    // again and again: alternating, so a busy machine weighs on both sides alike.
    const rounds: Array<{ idle: Probe; loaded: Probe; urls: number; bytes: number }> = [];
    let crawls = 0;
    rss.reset();
    for (let round = 0; round < roundCount; round++) {
      const idle = await probe(pageUrl);
      const controller = new AbortController();
      const loops = Array.from({ length: crawlers }, async () => {
        while (!controller.signal.aborted) {
          const done = await crawl(base, null, controller.signal).catch(() => null);
          if (!done) break;
          crawls++;
        }
      });
      // Let the crawlers get going first: the measure covers them running, not starting.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const before = { ...received };
      const loaded = await probe(pageUrl);
      rounds.push({ idle, loaded, urls: received.urls - before.urls, bytes: received.bytes - before.bytes });
      controller.abort();
      await Promise.all(loops);
    }
    const rssLoaded = rss.peak();

    // Every crawler again, each with the ETags it was given: 304s.
    const tags = new Map<string, string>();
    for (const url of [`${base}/sitemap.xml`, ...Array.from({ length: alone.files }, (_, i) => `${base}/sitemap-${i + 1}.xml`)]) {
      tags.set(url, (await fetch(url, { method: 'HEAD' })).headers.get('etag') ?? '');
    }
    const conditional = await Promise.all(Array.from({ length: crawlers }, () => crawl(base, tags)));
    rss.stop();

    console.log(`\nsitemap alone: ${alone.files} files, ${alone.urls} URLs, ${(alone.bytes / 1e6).toFixed(1)} MB in ${(alone.ms / 1000).toFixed(2)} s`);
    console.log('\npage reads (HTML, depth 5)               p50 ms  p99 ms  max ms  requests  non-2xx  errors   crawled URLs/s');
    const line = (label: string, m: Probe, urlsPerSecond = '') =>
      console.log(
        `${label.padEnd(40)} ${String(m.p50).padStart(6)}  ${String(m.p99).padStart(6)}  ${String(m.max).padStart(6)}  ${String(m.requests).padStart(8)}  ${String(m.non2xx).padStart(7)}  ${String(m.errors).padStart(6)}   ${urlsPerSecond}`,
      );
    rounds.forEach((r, index) => {
      line(`round ${index + 1}: idle`, r.idle);
      line(`round ${index + 1}: ${crawlers} crawlers`, r.loaded, (r.urls / duration).toFixed(0));
    });
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const idleP99 = median(rounds.map((r) => r.idle.p99));
    const loadedP99 = median(rounds.map((r) => r.loaded.p99));
    console.log(
      `\nmedian p99: idle ${idleP99} ms, under ${crawlers} crawlers ${loadedP99} ms; ratio ${(loadedP99 / Math.max(1, idleP99)).toFixed(2)} (target ≤ 2)`,
    );
    console.log(`${crawls} whole crawls finished while measuring`);
    console.log(
      `server RSS: ${rssStart.toFixed(0)} MB at start, peak ${rssAlone.toFixed(0)} MB during one crawl, peak ${rssLoaded.toFixed(0)} MB under ${crawlers} crawlers`,
    );
    const notModified = conditional.reduce((sum, c) => sum + c.notModified, 0);
    const slowest = Math.max(...conditional.map((c) => c.ms));
    console.log(
      `${crawlers} conditional crawls (If-None-Match): ${notModified} answers 304 of ${crawlers * (alone.files + 1)}, slowest crawl ${slowest.toFixed(0)} ms`,
    );
  } finally {
    if (server) await stopServer(server.child);
    await database.cleanup();
  }
}

await main();
