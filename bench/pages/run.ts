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
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { projectRoot } from '../../lib/paths.js';
import { option, scratchDatabase } from '../support.js';

const here = path.dirname(fileURLToPath(import.meta.url));

const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const duration = Number(option('duration', 'BENCH_DURATION', '10'));
const connections = Number(option('connections', 'BENCH_CONNECTIONS', '10'));
const TOTAL_PAGES = Number(option('pages', 'BENCH_PAGES', '100000'));
const MAX_DEPTH = 20;

interface Tree {
  paths: Record<1 | 5 | 20, string>;
}

/** 100,000 pages over 20 levels: 20 roots, 400 at level 2, the rest spread over levels 3–20, random parents. */
async function seed(url: string): Promise<Tree> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const levelSizes = [20, 400];
    const rest = TOTAL_PAGES - 420;
    for (let level = 3; level <= MAX_DEPTH; level++) levelSizes.push(Math.floor(rest / (MAX_DEPTH - 2)) + (level === MAX_DEPTH ? rest % (MAX_DEPTH - 2) : 0));
    let nextId = 1;
    let previous: number[] = [];
    const parentOf = new Map<number, number | null>();
    let random = 42;
    const rand = (n: number) => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return random % n;
    };
    const blocks = JSON.stringify([
      { type: 'heading', text: 'Présentation', level: 2 },
      { type: 'paragraph', text: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6) },
      { type: 'list', items: ['Premier point', 'Deuxième point', 'Troisième point'] },
      { type: 'paragraph', text: 'Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(4) },
    ]);
    for (const size of levelSizes) {
      const current: number[] = [];
      const rows: unknown[][] = [];
      for (let index = 0; index < size; index++) {
        const id = nextId++;
        const parent = previous.length ? previous[rand(previous.length)] : null;
        parentOf.set(id, parent);
        current.push(id);
        rows.push([id, parent, `Page ${id}`, `page-${id}`]);
      }
      for (let start = 0; start < rows.length; start += 5000) {
        const chunk = rows.slice(start, start + 5000);
        const values = chunk.map((_, i) => `($${i * 4 + 1}::int, $${i * 4 + 2}::int, $${i * 4 + 3}, $${i * 4 + 4}, $${chunk.length * 4 + 1}::jsonb, '{"description":"Une page du banc d’essai."}'::jsonb)`);
        await client.query(
          `INSERT INTO app_pages (id, parent_id, title, slug, blocks, seo) VALUES ${values.join(', ')}`,
          [...chunk.flat(), blocks],
        );
      }
      previous = current;
    }
    await client.query(`SELECT setval(pg_get_serial_sequence('app_pages', 'id'), (SELECT max(id) FROM app_pages))`);
    await client.query('ANALYZE app_pages');
    // A leaf at depth 20 and its ancestors give the three paths.
    const chain: number[] = [];
    for (let id: number | null = previous[0]; id !== null; id = parentOf.get(id) ?? null) chain.unshift(id);
    const pathTo = (depth: number) => chain.slice(0, depth).map((id) => `page-${id}`).join('/');
    const count = (await client.query('SELECT count(*)::int AS n FROM app_pages')).rows[0].n;
    console.log(`seeded ${count} pages, depth ${chain.length}`);
    return { paths: { 1: pathTo(1), 5: pathTo(5), 20: pathTo(20) } };
  } finally {
    await client.end();
  }
}

async function startServer(script: string, env: Record<string, string>): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(nodeBinary, ['--import', 'tsx', path.join(here, script)], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk) => {
      buffer += chunk;
      const match = /READY (\d+)/.exec(buffer);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { port, child };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

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
  const nodeVersion = await new Promise<string>((resolve) => {
    const child = spawn(nodeBinary, ['--version']);
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', () => resolve(out.trim()));
  });
  console.log(`servers on Node ${nodeVersion}; autocannon ${connections} connections, ${duration} s per scenario (after 2 s of warm-up)`);

  const database = await scratchDatabase('pages-bench');
  const url = database.url;
  const children: ChildProcess[] = [];
  try {
    const tree = await seed(url);
    const env = { DATABASE_URL: url, BENCH_DATA_DIR: database.dataDir, NODE_ENV: 'production' };

    const results: Record<string, Measure> = {};
    const baseline = await startServer('baseline-server.ts', env);
    children.push(baseline.child);
    for (const depth of [1, 5, 20] as const) {
      results[`baseline by-path depth ${depth}`] = await measure(`http://127.0.0.1:${baseline.port}/app/api/pages/by-path?path=${tree.paths[depth]}`);
    }
    await stopServer(baseline.child);

    const app = await startServer('app-server.ts', env);
    children.push(app.child);
    for (const depth of [1, 5, 20] as const) {
      results[`app by-path depth ${depth}`] = await measure(`http://127.0.0.1:${app.port}/app/api/pages/by-path?path=${tree.paths[depth]}`);
    }
    results['app HTML depth 5'] = await measure(`http://127.0.0.1:${app.port}/${tree.paths[5]}`);
    await stopServer(app.child);

    console.log('\nscenario                     req/s     p50 ms  p99 ms  errors  non-2xx');
    for (const [scenario, m] of Object.entries(results)) {
      console.log(`${scenario.padEnd(28)} ${m.rps.toFixed(0).padStart(7)}  ${String(m.p50).padStart(6)}  ${String(m.p99).padStart(6)}  ${String(m.errors).padStart(6)}  ${String(m.non2xx).padStart(7)}`);
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
