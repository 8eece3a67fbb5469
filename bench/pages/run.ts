// Benchmark of the pages module's public reads. In one run, on a tree of 100,000 pages
// (depth up to 20):
//   GET /app/api/pages/by-path and the public HTML page at depth 1, 5 and 20, on the real
//   application without its read cache (PAGE_CACHE_MB=0: every request runs its
//   statements) and with it warm (the default); an old path of the depth-20 page (a
//   redirect: 301, at most 2 statements uncached) on both; beside a baseline written with bare
//   node:http + pg running the same single lookup statement per request
//   (bench/pages/baseline-server.ts).
// Then the cached answers at depth 5 with the hit path off (PUBLIC_HIT_PATH=0: Express's
// whole pipeline), and the same bytes as the cached answers (recorded from the app)
// sent by a bare node:http server with the same headers (bench/pages/bytes-server.ts)
// and, when nginx is installed, by nginx as static files (bench/pages/nginx.ts).
// Reports requests/s, p50/p99/max latency per depth and the ratios against the baselines.
//
//   npm run bench:pages -- [--node <path to a node binary>] [--duration 10] [--connections 10]
//   (BENCH_NODE, BENCH_DURATION, BENCH_CONNECTIONS work too; the database is a throw-away
//   one, see bench/support.ts.)
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { option, scratchDatabase } from '../support.js';
import { seedPageTree, seedRedirect } from './seed.js';
import { nodeVersion, startServer, stopServer } from './servers.js';
import { nginxInstalled, startNginx } from './nginx.js';
import { recordAnswer, writeRecordedAnswers, type RecordedAnswer } from './recorded.js';

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const duration = Number(option('duration', 'BENCH_DURATION', '10'));
const connections = Number(option('connections', 'BENCH_CONNECTIONS', '10'));
const TOTAL_PAGES = Number(option('pages', 'BENCH_PAGES', '100000'));
const DEPTHS = [1, 5, 20] as const;

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
}

async function measure(url: string): Promise<Measure> {
  // Warm-up (JIT, pools, PostgreSQL's buffers, and the read cache when it is on), then the measured run.
  await autocannon({ url, connections, duration: 2 });
  const result = await autocannon({ url, connections, duration });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

async function main(): Promise<void> {
  console.log(`servers on Node ${await nodeVersion(nodeBinary)}; autocannon ${connections} connections, ${duration} s per scenario (after 2 s of warm-up)`);

  const database = await scratchDatabase('pages-bench');
  const url = database.url;
  const children: ChildProcess[] = [];
  try {
    const tree = await seedPageTree(url, TOTAL_PAGES);
    const redirected = await seedRedirect(url, tree);
    const env = { DATABASE_URL: url, BENCH_DATA_DIR: database.dataDir, NODE_ENV: 'production' };

    const results: Record<string, Measure> = {};
    const recorded = new Map<string, RecordedAnswer>();
    const baseline = await startServer(nodeBinary, 'baseline-server.ts', env);
    children.push(baseline.child);
    for (const depth of DEPTHS) {
      results[`baseline by-path depth ${depth}`] = await measure(`http://127.0.0.1:${baseline.port}/app/api/pages/by-path?path=${tree.paths[depth]}`);
    }
    await stopServer(baseline.child);

    for (const [label, cacheMb] of [
      ['uncached', '0'],
      ['cached', '32'],
    ] as const) {
      const app = await startServer(nodeBinary, 'app-server.ts', { ...env, PAGE_CACHE_MB: cacheMb });
      children.push(app.child);
      for (const depth of DEPTHS) {
        results[`${label} by-path depth ${depth}`] = await measure(`http://127.0.0.1:${app.port}/app/api/pages/by-path?path=${tree.paths[depth]}`);
      }
      for (const depth of DEPTHS) results[`${label} HTML depth ${depth}`] = await measure(`http://127.0.0.1:${app.port}/${tree.paths[depth]}`);
      // 301 answers: autocannon counts them as non-2xx and does not follow them.
      results[`${label} by-path redirect`] = await measure(`http://127.0.0.1:${app.port}/app/api/pages/by-path?path=${redirected}`);
      results[`${label} HTML redirect`] = await measure(`http://127.0.0.1:${app.port}/${redirected}`);
      if (label === 'cached') {
        for (const depth of DEPTHS) {
          for (const url of [`/app/api/pages/by-path?path=${tree.paths[depth]}`, `/${tree.paths[depth]}`])
            recorded.set(url, await recordAnswer(`http://127.0.0.1:${app.port}${url}`));
        }
      }
      await stopServer(app.child);
    }

    // The same cached answers through Express's whole pipeline (the hit path off).
    const pipeline = await startServer(nodeBinary, 'app-server.ts', { ...env, PAGE_CACHE_MB: '32', PUBLIC_HIT_PATH: '0' });
    children.push(pipeline.child);
    results['pipeline by-path depth 5'] = await measure(`http://127.0.0.1:${pipeline.port}/app/api/pages/by-path?path=${tree.paths[5]}`);
    results['pipeline HTML depth 5'] = await measure(`http://127.0.0.1:${pipeline.port}/${tree.paths[5]}`);
    await stopServer(pipeline.child);

    // The same bytes from bare node:http (same headers), then from nginx as static files.
    const answersFile = path.join(database.dataDir, 'recorded-answers.json');
    mkdirSync(database.dataDir, { recursive: true });
    writeFileSync(answersFile, writeRecordedAnswers(recorded));
    const bytes = await startServer(nodeBinary, 'bytes-server.ts', { BENCH_ANSWERS: answersFile });
    children.push(bytes.child);
    for (const depth of DEPTHS) {
      results[`node:http by-path depth ${depth}`] = await measure(`http://127.0.0.1:${bytes.port}/app/api/pages/by-path?path=${tree.paths[depth]}`);
      results[`node:http HTML depth ${depth}`] = await measure(`http://127.0.0.1:${bytes.port}/${tree.paths[depth]}`);
    }
    await stopServer(bytes.child);
    if (nginxInstalled()) {
      const nginx = await startNginx(recorded);
      try {
        for (const depth of DEPTHS) {
          results[`nginx by-path depth ${depth}`] = await measure(`http://127.0.0.1:${nginx.port}/app/api/pages/by-path?path=${tree.paths[depth]}`);
          results[`nginx HTML depth ${depth}`] = await measure(`http://127.0.0.1:${nginx.port}/${tree.paths[depth]}`);
        }
      } finally {
        await nginx.stop();
      }
    }

    console.log('\nscenario                       req/s  p50 ms  p99 ms  max ms  errors  non-2xx');
    for (const [scenario, m] of Object.entries(results)) {
      const cells = [m.p50, m.p99, m.max, m.errors].map((value) => String(value).padStart(6));
      console.log(`${scenario.padEnd(28)} ${m.rps.toFixed(0).padStart(7)}  ${cells.join('  ')}  ${String(m.non2xx).padStart(7)}`);
    }
    const percent = (a: string, b: string) => `${((100 * results[a].rps) / results[b].rps).toFixed(1)} %`;
    console.log('\nratios against the baseline at the same depth (requests/s):');
    for (const depth of DEPTHS) {
      const base = `baseline by-path depth ${depth}`;
      console.log(
        `  depth ${String(depth).padStart(2)}: by-path ${percent(`uncached by-path depth ${depth}`, base)} uncached, ${percent(`cached by-path depth ${depth}`, base)} cached (target ≥ 200 %); ` +
          `HTML ${percent(`uncached HTML depth ${depth}`, base)} uncached, ${percent(`cached HTML depth ${depth}`, base)} cached (target ≥ 200 %)`,
      );
    }
    console.log(
      `  redirect (old path of the depth-20 page, 301): by-path ${percent('uncached by-path redirect', 'baseline by-path depth 20')} uncached, ` +
        `${percent('cached by-path redirect', 'baseline by-path depth 20')} cached; HTML ${percent('uncached HTML redirect', 'baseline by-path depth 20')} uncached, ` +
        `${percent('cached HTML redirect', 'baseline by-path depth 20')} cached`,
    );
    console.log('\ncached answers against the same bytes sent bare (requests/s; target ≥ 50 % of node:http):');
    for (const depth of DEPTHS) {
      for (const kind of ['by-path', 'HTML']) {
        const cached = `cached ${kind} depth ${depth}`;
        const nginx = results[`nginx ${kind} depth ${depth}`] ? `, ${percent(cached, `nginx ${kind} depth ${depth}`)} of nginx` : ', nginx not installed';
        console.log(`  ${kind.padEnd(7)} depth ${String(depth).padStart(2)}: ${percent(cached, `node:http ${kind} depth ${depth}`)} of node:http${nginx}`);
      }
    }
    for (const kind of ['by-path', 'HTML']) {
      console.log(
        `  ${kind.padEnd(7)} depth  5 through Express's pipeline (PUBLIC_HIT_PATH=0): ${percent(`pipeline ${kind} depth 5`, `node:http ${kind} depth 5`)} of node:http; ` +
          `the hit path answers ${percent(`cached ${kind} depth 5`, `pipeline ${kind} depth 5`)} of the pipeline's requests/s`,
      );
    }
    console.log('\ndepth 20 against depth 1 (target: the same cost):');
    for (const scenario of ['uncached by-path', 'cached by-path', 'uncached HTML', 'cached HTML']) {
      const deep = results[`${scenario} depth 20`];
      const shallow = results[`${scenario} depth 1`];
      console.log(
        `  ${scenario.padEnd(17)} req/s ${((100 * deep.rps) / shallow.rps).toFixed(1)} %, p99 ${deep.p99} / ${shallow.p99} ms, p50 ${deep.p50} / ${shallow.p50} ms`,
      );
    }
  } finally {
    for (const child of children) await stopServer(child);
    await database.cleanup();
  }
}

await main();
