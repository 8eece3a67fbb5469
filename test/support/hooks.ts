// Mocha root hooks: one fresh database for the whole run, the app's pool and hashing
// threads closed at the end.
import { closeApp } from '../../app.js';
import { setClock } from '../../lib/clock.js';
import { setLogLevel } from '../../lib/logger.js';
import { startTestDatabase, stopTestDatabase } from './database.js';

export async function mochaGlobalSetup(): Promise<void> {
  setLogLevel(process.env.TEST_LOG_LEVEL ?? 'warn');
  await startTestDatabase();
}

export async function mochaGlobalTeardown(): Promise<void> {
  await closeApp();
  await stopTestDatabase();
}

export const mochaHooks = {
  afterEach(): void {
    setClock();
  },
};
