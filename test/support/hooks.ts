// Mocha root hooks. The run's main process migrates one template database (global
// setup, which mocha runs in the main process only, also under --parallel); each process
// that runs test files clones it on its first file, and under --parallel (where each
// file runs with its own root hooks in a worker that runs files one after another)
// starts each file on an emptied database. Each test app's clock is put back after
// every test; a file's apps are closed when its run ends (parallel) or when the next file
// starts (serial: each app holds a pool and a listening connection, and a whole suite's
// apps would pass PostgreSQL's max_connections), the rest at the end.
import { appendFileSync, readFileSync } from 'node:fs';
import type { Context } from 'mocha';
import { closeApp, type App } from '../../app.js';
import { cleanTestDatabase, endTestRun, prepareTestRun, useTestDatabase } from './database.js';
import { closeTestApp, testApps } from './app.js';

export async function mochaGlobalSetup(): Promise<void> {
  await prepareTestRun();
}

export async function mochaGlobalTeardown(): Promise<void> {
  for (const app of testApps()) await closeApp(app);
  await endTestRun();
}

// The file of the test that ran last, and the apps that existed when it ended: all
// created by that file or before it (apps are built in hooks, never at import time).
let lastFile: string | undefined;
let appsOfFinishedTests: App[] = [];
// When the running file started, for the run's list of slowest files (SITE_TEST_TIMES,
// set by test/support/run.ts): from the root beforeAll under --parallel (a file's own
// before hooks included), from its first test in a serial run.
// Beside the wall time, the CPU the file cost this process and the children it waited
// for (Chromium, spawned apps: /proc/self/stat's utime, stime, cutime, cstime), since on
// a busy machine the wall time says more of the neighbours than of the file.
let fileStartedAt = Date.now();
let fileCpuAtStart = cpuMs();
function cpuMs(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    // Fields 14–17 of proc(5), counted from after the command's closing parenthesis (field 3 is index 0).
    return ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return NaN; // not Linux: no CPU column
  }
}
function recordFileTime(file: string | undefined): void {
  const cpu = cpuMs();
  if (file && process.env.SITE_TEST_TIMES) appendFileSync(process.env.SITE_TEST_TIMES, `${Date.now() - fileStartedAt}\t${file}\t${cpu - fileCpuAtStart}\n`);
  fileStartedAt = Date.now();
  fileCpuAtStart = cpu;
}
// Whether this process has run a file before (its database holds what that file wrote).
const processState = globalThis as { __siteTestFilesRun?: number };

export const mochaHooks = {
  async beforeAll(): Promise<void> {
    fileStartedAt = Date.now();
    fileCpuAtStart = cpuMs();
    await useTestDatabase();
    // Under --parallel this runs before each file: the worker's previous file leaves nothing.
    if ((processState.__siteTestFilesRun = (processState.__siteTestFilesRun ?? 0) + 1) > 1) await cleanTestDatabase();
  },
  async afterAll(): Promise<void> {
    // Under --parallel, the end of a file in its worker; in a serial run, the end of the run.
    for (const app of testApps()) await closeTestApp(app);
    appsOfFinishedTests = [];
    recordFileTime(lastFile);
    lastFile = undefined;
  },
  async beforeEach(this: Context): Promise<void> {
    const file = this.currentTest?.file;
    if (lastFile !== undefined && file !== lastFile) {
      const open = testApps();
      for (const app of appsOfFinishedTests) if (open.includes(app)) await closeTestApp(app);
      appsOfFinishedTests = [];
      recordFileTime(lastFile);
    }
    lastFile = file;
  },
  afterEach(): void {
    appsOfFinishedTests = testApps();
    for (const app of appsOfFinishedTests) app.locals.ctx.clock.set();
  },
};
