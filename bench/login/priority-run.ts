// What the hashing threads' priority does to the event loop, without HTTP or a database:
// the application's password hasher (lib/password-hasher.ts, bcrypt at cost 11) kept busy
// with one thread per core, while the main thread does 2 ms of work every 20 ms (a
// stand-in for requests) and its event-loop delay is recorded. Rounds alternate the
// threads at nice 0 (the baseline: the priority of the event loop) and at nice 19
// (PASSWORD_HASH_NICE's default). Prints the delay's p50/p99/max and the hashes per second
// of each round.
//
//   npm run bench:hash-priority -- [--node <path>] [--seconds 4] [--rounds 2] [--threads <cores>]
//   (--node runs this same file again under that binary, as the other benchmarks run their servers.)
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { createPasswordHasher } from '../../lib/password-hasher.js';
import { table } from '../site.js';
import { option } from '../support.js';

const seconds = Number(option('seconds', 'BENCH_SECONDS', '4'));
const rounds = Number(option('rounds', 'BENCH_ROUNDS', '2'));
const threads = Number(option('threads', 'BENCH_THREADS', String(os.availableParallelism())));
const nodeBinary = option('node', 'BENCH_NODE', process.execPath);
const logger = pino({ level: 'warn' });

if (nodeBinary !== process.execPath) {
  const rest = process.argv.slice(2).filter((_arg, index, all) => all[index] !== '--node' && all[index - 1] !== '--node');
  const { status } = spawnSync(nodeBinary, ['--import', 'tsx', fileURLToPath(import.meta.url), ...rest], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_NODE: '' },
  });
  process.exit(status ?? 1);
}

async function round(nice: number): Promise<string[]> {
  const hasher = createPasswordHasher({ cost: 11, threads, nice, logger });
  await hasher.hash('warm-up'); // threads started (and reniced) before the measure
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const work = setInterval(() => {
    const end = performance.now() + 2;
    while (performance.now() < end);
  }, 20);
  delay.enable();
  const until = performance.now() + seconds * 1000;
  let hashes = 0;
  // As many jobs in flight as threads, each replaced when done, until the time is up.
  await Promise.all(
    Array.from({ length: threads }, async () => {
      while (performance.now() < until) {
        await hasher.hash('bench password');
        hashes++;
      }
    }),
  );
  delay.disable();
  clearInterval(work);
  await hasher.close();
  const ms = (nanoseconds: number) => (nanoseconds / 1e6).toFixed(1);
  return [String(nice), String(threads), `${ms(delay.percentile(50))} / ${ms(delay.percentile(99))} / ${ms(delay.max)}`, (hashes / seconds).toFixed(1)];
}

console.log(
  `Node ${process.version}, ${os.availableParallelism()} CPU cores, ${threads} hashing threads, ${seconds} s per round; load average before: ${os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')}`,
);
const rows: string[][] = [];
for (let index = 0; index < rounds; index++) for (const nice of [0, 19]) rows.push(await round(nice));
console.log('\n' + table(['nice', 'threads', 'event-loop delay p50 / p99 / max ms', 'hashes/s'], rows));
