// Benchmark of the public site search (GET /app/api/pages/search) on a site of 100,000
// pages of French text (bench/search/seed.ts): five typical queries (a common word, a
// rare word, a prefix, two words, a typo), each asked `--requests` times one after the
// other through the real application with its read cache off (PAGE_CACHE_MB=0: every
// request runs its statements), then the same statements run bare through pg (no HTTP,
// no Express, no JSON), on one connection. Prints p50 and p99 of each, and how many pages
// each query finds (`1000+`: more than the search counts).
//
//   npm run bench:search -- [--node <node binary>[,<another>]] [--pages 100000] [--requests 200]
//   (BENCH_NODE, BENCH_PAGES, BENCH_REQUESTS work too; the database is a throw-away one,
//   see bench/support.ts.)
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { correctedSearch, exactSearch, queryWords, searchRowsOf, type RawRow, type SearchStatement } from '../../models/pages/search.js';
import { option, scratchDatabase } from '../support.js';
import { nodeVersion, startServer, stopServer } from '../pages/servers.js';
import { COMMON_WORD, RARE_WORDS, seedSearchSite, VERY_COMMON_WORD } from './seed.js';

// One binary, or several separated by commas: the site is seeded once, the app measured with each.
const nodeBinaries = option('node', 'BENCH_NODE', process.execPath).split(',');
const TOTAL_PAGES = Number(option('pages', 'BENCH_PAGES', '100000'));
const REQUESTS = Number(option('requests', 'BENCH_REQUESTS', '200'));
const WARM_UP = 20;
const LIMIT = 10;

const QUERIES: Array<[string, string]> = [
  ['common word', COMMON_WORD],
  ['rare word', RARE_WORDS[0]],
  ['prefix', 'bibliot'],
  ['two words', 'poterie jardinage'],
  ['typo', 'bibliothqeue'],
  // Beyond the five: a word in most pages, and two words found together as typed (the seeded
  // site has no page with both «poterie» and «jardinage»: that pair goes through the typo fallback).
  ['very common word', VERY_COMMON_WORD],
  ['two words, both found', 'marché fromage'],
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

interface Timing {
  p50: number;
  p99: number;
  /** The answer's total, «1000+» when capped. */
  found: string;
}

const foundOf = (total: number, capped: boolean) => `${total}${capped ? '+' : ''}`;

async function timed(run: () => Promise<string>): Promise<Timing> {
  let found = '';
  for (let n = 0; n < WARM_UP; n++) found = await run();
  const times: number[] = [];
  for (let n = 0; n < REQUESTS; n++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), found };
}

/** knex's `?` placeholders as pg's `$n`. */
function bare(statement: SearchStatement): { text: string; values: unknown[] } {
  let n = 0;
  return { text: statement.sql.replace(/\?/g, () => `$${++n}`), values: statement.bindings };
}

async function measureApp(nodeBinary: string, database: { url: string; dataDir: string }, children: ChildProcess[]): Promise<Timing[]> {
  const app = await startServer(nodeBinary, '../pages/app-server.ts', {
    DATABASE_URL: database.url,
    BENCH_DATA_DIR: database.dataDir,
    NODE_ENV: 'production',
    PAGE_CACHE_MB: '0',
  });
  children.push(app.child);
  const timings: Timing[] = [];
  for (const [, query] of QUERIES) {
    const url = `http://127.0.0.1:${app.port}/app/api/pages/search?q=${encodeURIComponent(query)}&limit=${LIMIT}`;
    timings.push(
      await timed(async () => {
        const response = await fetch(url);
        if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
        const { total, total_capped: capped } = (await response.json()) as { total: number; total_capped: boolean };
        return foundOf(total, capped);
      }),
    );
  }
  await stopServer(app.child);
  return timings;
}

async function measureSql(url: string): Promise<Timing[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const timings: Timing[] = [];
    for (const [, query] of QUERIES) {
      const words = queryWords(query);
      const options = { limit: LIMIT, offset: 0, chosenHomeId: null };
      timings.push(
        await timed(async () => {
          // What the model runs: the search as typed, and the corrected one when it finds nothing.
          const exact = searchRowsOf((await client.query<RawRow>(bare(exactSearch(words, options)))).rows);
          if (exact.total > 0) return foundOf(exact.total, exact.totalCapped);
          const corrected = correctedSearch(words, options);
          const rows = corrected ? searchRowsOf((await client.query<RawRow>(bare(corrected))).rows) : exact;
          return foundOf(rows.total, rows.totalCapped);
        }),
      );
    }
    return timings;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const versions = await Promise.all(nodeBinaries.map(nodeVersion));
  console.log(`app on Node ${versions.join(' and ')}; ${REQUESTS} requests per query, one at a time (after ${WARM_UP} of warm-up)`);
  const database = await scratchDatabase('search-bench');
  const children: ChildProcess[] = [];
  try {
    await seedSearchSite(database.url, TOTAL_PAGES);
    const sql = await measureSql(database.url);
    const apps: Timing[][] = [];
    for (const binary of nodeBinaries) apps.push(await measureApp(binary, database, children));

    // The machine's load says how much of it the run had (the target is for a quiet one).
    console.log(`\n${TOTAL_PAGES} pages; p50 / p99 in ms (target p99 ≤ 25 ms for the full-text queries); the bare SQL through pg on one connection`);
    console.log(
      `load average at the end: ${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(', ')} on ${os.availableParallelism()} cores`,
    );
    const head = versions.map((version) => `${`app ${version}`.padStart(13)} p50 / p99`).join('');
    console.log(`${'query'.padEnd(38)} ${'found'.padStart(6)}  ${'SQL p50 / p99'.padStart(18)}${head}`);
    for (const [index, [label, query]] of QUERIES.entries()) {
      const pair = (t: Timing) => `${t.p50.toFixed(2).padStart(8)} / ${t.p99.toFixed(2).padEnd(7)}`;
      const cells = [sql[index], ...apps.map((timings) => timings[index])].map(pair).join('  ');
      console.log(`${`${label} «${query}»`.padEnd(38)} ${sql[index].found.padStart(6)}  ${cells}`);
    }
  } finally {
    for (const child of children) await stopServer(child);
    await database.cleanup();
  }
}

await main();
