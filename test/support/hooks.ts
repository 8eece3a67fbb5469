// Mocha root hooks: one fresh database for the whole run; each test app's clock put
// back after every test; every app closed at the end.
import { closeApp } from '../../app.js';
import { startTestDatabase, stopTestDatabase } from './database.js';
import { testApps } from './app.js';

export async function mochaGlobalSetup(): Promise<void> {
  await startTestDatabase();
}

export async function mochaGlobalTeardown(): Promise<void> {
  for (const app of testApps()) await closeApp(app);
  await stopTestDatabase();
}

export const mochaHooks = {
  afterEach(): void {
    for (const app of testApps()) app.locals.ctx.clock.set();
  },
};
