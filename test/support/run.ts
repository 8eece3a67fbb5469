// `npm test`: the whole suite on one migrated template database, every lane at once:
//
//   - the files tagged `@serial` (a line `// @serial: <why>`: they spawn processes AND
//     assert durations, such as a stop within 5 s), in one serial mocha run at the
//     machine's normal priority;
//   - everything else at the lowest priority (`nice -n 19`, inherited by every process
//     it starts: workers, Chromium, spawned servers), so that it only takes the CPU the
//     @serial files leave: their durations are measured as on a quiet machine, and the
//     cores they leave idle while they wait on their children do the rest of the suite:
//     - every file not tagged `@apart` or `@serial`, under `mocha --parallel` (one cloned
//       database per worker, each file started on an emptied one); the files tagged
//       `@heavy` (Chromium, a build: long, CPU-hungry, but timing nothing) first,
//       largest first, so that none of them is left running alone at the end;
//     - the files tagged `@apart` (a line `// @apart: <why>` near the top: they spawn app
//       processes, PostgreSQL clusters or nginx, but assert no duration), one after
//       another in one mocha run of their own, beside the workers: they mostly wait on
//       their children, and two of them at once would fight over ports and clusters.
//
// SITE_TEST_BESIDE, when set, is a shell command run as one more low-priority lane (CI's
// lint and type-check: work that asserts no duration either); its exit status is its
// caller's business, not a test's.
//
// SITE_TEST_ISOLATE=1 runs every file in a process of its own instead (a fresh mocha,
// a fresh clone of the template): each file then passes or fails without the others,
// which is what CI proves. SITE_TEST_JOBS sets how many run at once in the parallel lane
// (default: the machine's cores, plus one: the files wait on PostgreSQL and Chromium a
// good part of their time). Arguments, when given, are the files or folders to run.
// SITE_TEST_SLOWEST sets how many of the slowest and costliest files are listed (10).
//
// Ends with the line "N passed, N failed" (CI reads it), the sum of every mocha run, after
// the list of the slowest files.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { endTestRun, prepareTestRun } from './database.js';

interface Counts {
  passed: number;
  failed: number;
}

const root = path.resolve(import.meta.dirname, '..', '..');
const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const countsDir = mkdtempSync(path.join(os.tmpdir(), 'site-test-counts-'));
const jobs = Number(process.env.SITE_TEST_JOBS) || os.availableParallelism() + 1;
const isolate = process.env.SITE_TEST_ISOLATE === '1';
// Each file's time, written by the root hooks (test/support/hooks.ts) of every mocha process.
const timesFile = path.join(countsDir, 'times.tsv');

function testFiles(from: string): string[] {
  if (statSync(from).isFile()) return [from];
  return readdirSync(from, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.join(from, file));
}

const SERIAL_TAG = /^\/\/ @serial\b/m;
const APART_TAG = /^\/\/ @apart\b/m;
const asked = process.argv.slice(2);
const files = [...new Set((asked.length ? asked : ['test']).flatMap((entry) => testFiles(path.relative(root, path.resolve(entry)))))].sort();
const HEAVY_TAG = /^\/\/ @heavy\b/m;
const sourceOf = (file: string) => readFileSync(path.join(root, file), 'utf8');
const serial = files.filter((file) => SERIAL_TAG.test(sourceOf(file)));
const apart = files.filter((file) => !serial.includes(file) && APART_TAG.test(sourceOf(file)));
const heavy = files.filter((file) => HEAVY_TAG.test(sourceOf(file))).sort((a, b) => statSync(path.join(root, b)).size - statSync(path.join(root, a)).size);
const parallel = [...heavy, ...files.filter((file) => !serial.includes(file) && !apart.includes(file) && !heavy.includes(file))];

// The lowest priority for the lanes that time nothing, through coreutils' nice (where
// there is none, every lane runs at the same priority).
const NICE = ['/usr/bin/nice', '/bin/nice'].find((file) => existsSync(file));
/** The command line of `command`, at the lowest priority when `low`. */
function prioritized(command: string[], low: boolean): [string, string[]] {
  const line = low && NICE ? [NICE, '-n', '19', ...command] : command;
  return [line[0], line.slice(1)];
}

let runs = 0;
/** One mocha command; resolves with its counts (a run that ended abnormally counts one failure more). */
function runMocha(args: string[], buffered: boolean, low: boolean): Promise<Counts> {
  const countsFile = path.join(countsDir, `${++runs}.json`);
  return new Promise((resolve) => {
    const child = spawn(...prioritized([process.execPath, mocha, ...args], low), {
      cwd: root,
      env: { ...process.env, SITE_TEST_COUNTS: countsFile, SITE_TEST_TIMES: timesFile },
      stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    const output: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (code) => {
      if (buffered) process.stdout.write(Buffer.concat(output));
      let counts: Counts = { passed: 0, failed: 0 };
      try {
        counts = JSON.parse(readFileSync(countsFile, 'utf8')) as Counts;
      } catch {
        // No counts: mocha stopped before its reporter's end (a file that does not load).
      }
      if (code !== 0 && counts.failed === 0) {
        console.log(`mocha ${args.join(' ')} ended abnormally (exit ${code})`);
        counts.failed += 1;
      }
      resolve(counts);
    });
  });
}

/**
 * Each file of `queue` in a fresh process, `concurrency` at a time, taken from the queue
 * itself (so that another lane may take from it too); a file's output is printed whole
 * when it ends.
 */
async function eachAlone(queue: string[], concurrency: number, low: boolean): Promise<Counts[]> {
  const results: Counts[] = [];
  await Promise.all(
    Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let file = queue.shift(); file; file = queue.shift()) {
        const counts = await runMocha([file], true, low);
        if (counts.failed) console.log(`FAILED alone: ${file}`);
        results.push(counts);
      }
    }),
  );
  return results;
}

/** The files that took longest (wall time, from the hooks' records) and those that cost most CPU, to know where the suite's time goes. */
function printSlowestFiles(count: number): void {
  let lines: string[];
  try {
    lines = readFileSync(timesFile, 'utf8').trim().split('\n');
  } catch {
    return; // no file has ended (every one failed to load)
  }
  const times = lines.map((line) => line.split('\t')).map(([ms, file, cpu]) => ({ ms: Number(ms), file: path.relative(root, file ?? ''), cpu: Number(cpu) }));
  times.sort((a, b) => b.ms - a.ms);
  console.log(`\n== slowest files`);
  for (const { ms, file } of times.slice(0, count)) console.log(`${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`);
  const withCpu = times.filter((time) => Number.isFinite(time.cpu));
  if (!withCpu.length) return;
  withCpu.sort((a, b) => b.cpu - a.cpu);
  const totalCpu = withCpu.reduce((sum, time) => sum + time.cpu, 0);
  console.log(`\n== files that cost most CPU (their process and the children it waited for; ${Math.round(totalCpu / 1000)} s in all)`);
  for (const { cpu, file } of withCpu.slice(0, count)) console.log(`${(cpu / 1000).toFixed(1).padStart(7)} s  ${file}`);
}

const startedAt = Date.now();
const total: Counts = { passed: 0, failed: 0 };
const add = (counts: Counts[]) => {
  for (const { passed, failed } of counts) {
    total.passed += passed;
    total.failed += failed;
  }
};
const seconds = (since: number) => `${Math.round((Date.now() - since) / 1000)} s`;
/** A lane, saying how long it took when it ends (the longest one is the run). */
function timed(name: string, lane: Promise<Counts[]>): Promise<Counts[]> {
  const startedAt = Date.now();
  return lane.then((counts) => {
    console.log(`\n== ${name} ended after ${seconds(startedAt)}`);
    return counts;
  });
}

await prepareTestRun();
try {
  const lanes: Array<Promise<Counts[]>> = [];
  const parallelQueue = [...parallel];
  if (serial.length) {
    // Buffered unless alone: its report is printed whole when the lane ends.
    console.log(`\n== ${serial.length} files tagged @serial, one at a time, at normal priority${isolate ? ', each in a process of its own' : ''}`);
    const others = parallel.length + apart.length > 0;
    // Alone in processes of their own, once its files are done the lane takes the
    // parallel lane's next files, at low priority as those run.
    const serialLane = isolate
      ? eachAlone([...serial], 1, false).then(async (counts) => [...counts, ...(await eachAlone(parallelQueue, 1, true))])
      : runMocha(serial, others, false).then((counts) => [counts]);
    lanes.push(timed('@serial lane', serialLane));
  }
  if (parallel.length) {
    console.log(`\n== ${parallel.length} files, ${jobs} at a time${isolate ? ', each in a process of its own' : ' (mocha --parallel)'}, at low priority`);
    lanes.push(
      timed(
        'parallel lane',
        isolate ? eachAlone(parallelQueue, jobs, true) : runMocha(['--parallel', '--jobs', String(jobs), ...parallel], false, true).then((counts) => [counts]),
      ),
    );
  }
  if (apart.length) {
    // Buffered: its report is printed whole when the lane ends, after the workers' or among them.
    console.log(`\n== beside them, ${apart.length} files tagged @apart, one at a time${isolate ? ', each in a process of its own' : ''}, at low priority`);
    // Each file in a process of its own: once its own files are done, the lane takes the
    // parallel lane's next files (the processes' start-up leaves the cores room for it).
    const apartLane = isolate
      ? eachAlone([...apart], 1, true).then(async (counts) => [...counts, ...(await eachAlone(parallelQueue, 1, true))])
      : runMocha(apart, true, true).then((counts) => [counts]);
    lanes.push(timed('@apart lane', apartLane));
  }
  const beside = process.env.SITE_TEST_BESIDE;
  if (beside) {
    console.log(`\n== beside them, at low priority: ${beside}`);
    lanes.push(
      timed(
        'beside lane',
        new Promise((resolve) => spawn(...prioritized(['bash', '-c', beside], true), { cwd: root, stdio: 'inherit' }).on('close', () => resolve([]))),
      ),
    );
  }
  for (const lane of await Promise.all(lanes)) add(lane);
  printSlowestFiles(Number(process.env.SITE_TEST_SLOWEST) || 10);
} finally {
  await endTestRun();
  rmSync(countsDir, { recursive: true, force: true });
}
console.log(`\n== ${files.length} files in ${seconds(startedAt)}`);
console.log(`\n${total.passed} passed, ${total.failed} failed`);
process.exitCode = total.failed ? 1 : 0;
