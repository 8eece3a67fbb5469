// Benchmark of a flood of public readers (scale issue): 500 concurrent keep-alive clients
// (autocannon) read public pages for 60 s, spread over every page of a seeded tree, half
// the site's HTML, half GET /app/api/pages/by-path, so the cache holds far more than it
// may keep and keeps evicting. The server (app.ts, production settings, one process) runs
// once per PAGE_CACHE_MB value; the first value, 0 (no cache), is the baseline. Prints
// errors (target 0), requests/s, latency, and the server's resident memory sampled every
// 250 ms (at start, at the peak, at the end) beside PAGE_CACHE_MB: the peak above the
// start should stay within the cache's bound plus a constant, and the peak of the flood's
// second half should match its first half's (the memory has levelled off, not still growing).
//
//   npm run bench:flood -- [--node <path>] [--duration 60] [--connections 500] [--pages 20000] [--cache-mb 0,8,64]
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { seedPageTree } from '../pages/seed.js';
import { siteEnv, startSite, table, type Site } from '../site.js';
import { option, scratchDatabase } from '../support.js';

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const duration = Number(option('duration', 'BENCH_DURATION', '60'));
const connections = Number(option('connections', 'BENCH_CONNECTIONS', '500'));
const totalPages = Number(option('pages', 'BENCH_PAGES', '20000'));
const cacheSizes = option('cache-mb', 'BENCH_CACHE_MB', '0,8,64').split(',').map(Number);

interface Run {
  cacheMb: number;
  result: autocannon.Result;
  rssStart: number;
  rssPeak: number;
  /** The peaks of the first and the second half of the flood: equal when the memory has levelled off. */
  rssHalves: [number, number];
  rssEnd: number;
}

/** Every page's slug path (each page of the seeded tree is public). */
async function allPaths(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ path: string }>(
      `WITH RECURSIVE walk(id, path) AS (
         SELECT id, slug::text FROM app_pages WHERE parent_id IS NULL
         UNION ALL
         SELECT p.id, walk.path || '/' || p.slug FROM app_pages p JOIN walk ON p.parent_id = walk.id)
       SELECT path FROM walk`,
    );
    return rows.map((row) => row.path);
  } finally {
    await client.end();
  }
}

async function flood(site: Site, paths: string[], seconds: number): Promise<{ result: autocannon.Result; rssHalves: [number, number] }> {
  let next = 0;
  // Pages in a fixed shuffled order, each client taking the next one: every page is asked
  // for, over and over, HTML and JSON alternately.
  const pathOf = () => {
    const path = paths[next++ % paths.length];
    return next % 2 ? `/${path}` : `/app/api/pages/by-path?path=${path}`;
  };
  const rssHalves: [number, number] = [site.rssMb(), 0];
  const halfway = performance.now() + (seconds * 1000) / 2;
  const sample = () => {
    const half = performance.now() < halfway ? 0 : 1;
    rssHalves[half] = Math.max(rssHalves[half], site.rssMb());
  };
  const sampler = setInterval(sample, 250);
  try {
    const result = await autocannon({
      url: site.base,
      connections,
      duration: seconds,
      requests: [{ setupRequest: (request) => ({ ...request, path: pathOf() }) }],
    });
    sample();
    return { result, rssHalves };
  } finally {
    clearInterval(sampler);
  }
}

async function main(): Promise<void> {
  const version = execFileSync(nodeBinary, ['--version'], { encoding: 'utf8' }).trim();
  console.log(
    `Node ${version}, ${os.availableParallelism()} CPU cores; ${connections} keep-alive clients for ${duration} s per run on ${totalPages} public pages ` +
      `(HTML and by-path alternately); PAGE_CACHE_MB ${cacheSizes.join(', ')}; load average before: ${os
        .loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')}`,
  );
  const database = await scratchDatabase('bench-flood');
  const runs: Run[] = [];
  let site: Site | undefined;
  try {
    await seedPageTree(database.url, totalPages);
    const paths = (await allPaths(database.url)).sort(() => Math.random() - 0.5);
    for (const cacheMb of cacheSizes) {
      site = await startSite(nodeBinary, siteEnv(database.url, database.dataDir, { PAGE_CACHE_MB: String(cacheMb), RATE_LIMIT_API: '100000000/1m' }));
      // A short warm-up (JIT, pools), then the resident memory before the flood.
      await autocannon({ url: `${site.base}/app/api/pages/by-path?path=${paths[0]}`, connections: 10, duration: 2 });
      const rssStart = site.rssMb();
      const { result, rssHalves } = await flood(site, paths, duration);
      runs.push({ cacheMb, result, rssStart, rssPeak: Math.max(...rssHalves), rssHalves, rssEnd: site.rssMb() });
      await site.stop();
      site = undefined;
    }
  } finally {
    await site?.stop();
    await database.cleanup();
  }

  const baseline = runs[0];
  const mb = (value: number) => value.toFixed(0);
  console.log(
    '\n' +
      table(
        [
          'PAGE_CACHE_MB',
          'requests',
          'errors / timeouts / non-2xx',
          'req/s',
          'vs first',
          'p50 / p99 / max ms',
          'RSS start / peak / end MB',
          'peak 1st / 2nd half MB',
          'peak − start MB',
          'peak − start − cache MB',
        ],
        runs.map((run) => [
          String(run.cacheMb),
          String(run.result.requests.total),
          `${run.result.errors} / ${run.result.timeouts} / ${run.result.non2xx}`,
          run.result.requests.average.toFixed(0),
          `${((100 * run.result.requests.average) / baseline.result.requests.average).toFixed(0)} %`,
          `${run.result.latency.p50} / ${run.result.latency.p99} / ${run.result.latency.max}`,
          `${mb(run.rssStart)} / ${mb(run.rssPeak)} / ${mb(run.rssEnd)}`,
          `${mb(run.rssHalves[0])} / ${mb(run.rssHalves[1])}`,
          mb(run.rssPeak - run.rssStart),
          mb(run.rssPeak - run.rssStart - run.cacheMb),
        ]),
      ),
  );
  const failed = runs.filter((run) => run.result.errors + run.result.timeouts + run.result.non2xx > 0);
  if (failed.length > 0) {
    console.error(`\nFAILED: errors with PAGE_CACHE_MB ${failed.map((run) => run.cacheMb).join(', ')}`);
    process.exitCode = 1;
  }
}

await main();
