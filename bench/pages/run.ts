// Benchmark of the pages module (issue: pages module). In one run, on a tree of 100,000
// pages (depth up to 20):
//   GET /app/api/pages/by-path at depth 1, 5 and 20, and the public HTML render of a
//   depth-5 page, on the real application; beside a baseline written with bare
//   node:http + pg running the same single lookup query (bench/pages/baseline-server.ts).
// Reports requests/s, p99 latency and the ratios against the baseline.
//
//   npm run bench:pages -- [--node <path to a node binary>] [--duration 10] [--connections 10]
//   (BENCH_NODE, BENCH_DURATION, BENCH_CONNECTIONS work too; the database is a throw-away
//   one, see bench/support.ts.)
import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { option, scratchDatabase } from '../support.js';
import { seedPageTree } from './seed.js';
import { nodeVersion, startServer, stopServer } from './servers.js';

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const duration = Number(option('duration', 'BENCH_DURATION', '10'));
const connections = Number(option('connections', 'BENCH_CONNECTIONS', '10'));
const TOTAL_PAGES = Number(option('pages', 'BENCH_PAGES', '100000'));

interface Measure {
  rps: number;
  p99: number;
  p50: number;
  errors: number;
  non2xx: number;
}

async function measure(url: string): Promise<Measure> {
  // Warm-up (JIT, pools, the page cache of PostgreSQL), then the measured run.
  await autocannon({ url, connections, duration: 2 });
  const result = await autocannon({ url, connections, duration });
  return { rps: result.requests.average, p99: result.latency.p99, p50: result.latency.p50, errors: result.errors, non2xx: result.non2xx };
}

async function main(): Promise<void> {
  console.log(`servers on Node ${await nodeVersion(nodeBinary)}; autocannon ${connections} connections, ${duration} s per scenario (after 2 s of warm-up)`);

  const database = await scratchDatabase('pages-bench');
  const url = database.url;
  const children: ChildProcess[] = [];
  try {
    const tree = await seedPageTree(url, TOTAL_PAGES);
    const env = { DATABASE_URL: url, BENCH_DATA_DIR: database.dataDir, NODE_ENV: 'production' };

    const results: Record<string, Measure> = {};
    const baseline = await startServer(nodeBinary, 'baseline-server.ts', env);
    children.push(baseline.child);
    for (const depth of [1, 5, 20] as const) {
      results[`baseline by-path depth ${depth}`] = await measure(`http://127.0.0.1:${baseline.port}/app/api/pages/by-path?path=${tree.paths[depth]}`);
    }
    await stopServer(baseline.child);

    const app = await startServer(nodeBinary, 'app-server.ts', env);
    children.push(app.child);
    for (const depth of [1, 5, 20] as const) {
      results[`app by-path depth ${depth}`] = await measure(`http://127.0.0.1:${app.port}/app/api/pages/by-path?path=${tree.paths[depth]}`);
    }
    results['app HTML depth 5'] = await measure(`http://127.0.0.1:${app.port}/${tree.paths[5]}`);
    await stopServer(app.child);

    console.log('\nscenario                     req/s     p50 ms  p99 ms  errors  non-2xx');
    for (const [scenario, m] of Object.entries(results)) {
      console.log(
        `${scenario.padEnd(28)} ${m.rps.toFixed(0).padStart(7)}  ${String(m.p50).padStart(6)}  ${String(m.p99).padStart(6)}  ${String(m.errors).padStart(6)}  ${String(m.non2xx).padStart(7)}`,
      );
    }
    const ratio = (a: string, b: string) => results[a].rps / results[b].rps;
    console.log('\nratios (app / baseline, requests/s):');
    for (const depth of [1, 5, 20]) {
      console.log(`  by-path depth ${depth}: ${(100 * ratio(`app by-path depth ${depth}`, `baseline by-path depth ${depth}`)).toFixed(1)} % (target ≥ 50 %)`);
    }
    console.log(`  HTML depth 5 vs baseline depth 5: ${(100 * ratio('app HTML depth 5', 'baseline by-path depth 5')).toFixed(1)} % (target ≥ 45 %)`);
    const p99 = (key: string) => results[key].p99;
    console.log(`  app p99 depth 20 / depth 1: ${(p99('app by-path depth 20') / p99('app by-path depth 1')).toFixed(2)} (target ≤ 1.5)`);
    console.log(`  app p50 depth 20 / depth 1: ${(results['app by-path depth 20'].p50 / results['app by-path depth 1'].p50).toFixed(2)}`);
  } finally {
    for (const child of children) await stopServer(child);
    await database.cleanup();
  }
}

await main();
