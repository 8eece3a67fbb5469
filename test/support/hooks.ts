// Mocha root hooks: one fresh database for the whole run; each test app's clock put
// back after every test; a file's apps closed when the next file starts (each holds a
// pool and a listening connection: kept to the end of the run, a whole suite's apps
// would pass PostgreSQL's max_connections), the rest at the end.
import type { Context } from 'mocha';
import { closeApp, type App } from '../../app.js';
import { startTestDatabase, stopTestDatabase } from './database.js';
import { closeTestApp, testApps } from './app.js';

export async function mochaGlobalSetup(): Promise<void> {
  await startTestDatabase();
}

export async function mochaGlobalTeardown(): Promise<void> {
  for (const app of testApps()) await closeApp(app);
  await stopTestDatabase();
}

// The file of the test that ran last, and the apps that existed when it ended: all
// created by that file or before it (apps are built in hooks, never at import time).
let lastFile: string | undefined;
let appsOfFinishedTests: App[] = [];

export const mochaHooks = {
  async beforeEach(this: Context): Promise<void> {
    const file = this.currentTest?.file;
    if (lastFile !== undefined && file !== lastFile) {
      const open = testApps();
      for (const app of appsOfFinishedTests) if (open.includes(app)) await closeTestApp(app);
      appsOfFinishedTests = [];
    }
    lastFile = file;
  },
  afterEach(): void {
    appsOfFinishedTests = testApps();
    for (const app of appsOfFinishedTests) app.locals.ctx.clock.set();
  },
};
