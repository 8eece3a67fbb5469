import { closeApp, createApp, type App } from '../../app.js';
import { loadConfig, type Config } from '../../lib/config.js';
import type { AppContext } from '../../lib/context.js';
import { resetDatabase, testDatabase } from './database.js';
import { testModules } from './modules.js';
import { startSmtpServer, type TestSmtpServer } from './smtp.js';

export type { App };

/** Configuration of a test app; `env` entries override the defaults (as variables would). */
export function testConfig(env: Record<string, string | undefined> = {}): Config {
  const database = testDatabase();
  return loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    DATA_DIR: database.scratchDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SESSION_SECRET: 'test-session-secret-that-is-long-enough-0123456789',
    // Cheaper hashes keep the suite fast; production refuses anything under 11.
    PASSWORD_HASH_COST: '4',
    PASSWORD_HASH_THREADS: '1',
    // At the process's priority: a niced thread would wait behind every other test process
    // of a busy machine, turning each login into seconds (the priority has its own tests).
    PASSWORD_HASH_NICE: '0',
    DATABASE_POOL_MAX: '5',
    // A late heartbeat empties the public cache: on a machine busy with parallel test
    // workers, the default 2 s would make statement counts depend on the load. The
    // heartbeat's own tests set theirs.
    PUBLIC_CACHE_HEARTBEAT_MS: '10000',
    APP_NAME: 'Site de test',
    BASE_URL: 'http://site.test',
    ...env,
  });
}

// Kept on globalThis: mocha may load the root hooks and the test files through
// different module loaders. The root hooks close every app at the end of the run.
const state = globalThis as { __siteTestApps?: Set<App> };

/** An app of the site's modules and the tests' fixture modules on the run's test database; closed by the root hooks at the end of the run. */
export function createTestApp(env: Record<string, string | undefined> = {}): App {
  const app = createApp(testConfig(env), testModules());
  (state.__siteTestApps ??= new Set()).add(app);
  return app;
}

/** The application context of a test app: what its fixtures and models are called with. */
export function contextOf(app: App): AppContext {
  return app.locals.ctx;
}

/** Closes an app now (its pool, hashing threads, mail) instead of at the end of the run. */
export async function closeTestApp(app: App): Promise<void> {
  state.__siteTestApps?.delete(app);
  await closeApp(app);
}

/** Every app created so far (the root hooks reset their clocks and close them). */
export function testApps(): App[] {
  return [...(state.__siteTestApps ?? [])];
}

/** Empties every table a test may have written (keeps migrations' reference data). */
export async function resetData(ctx: AppContext): Promise<void> {
  await ctx.background.settle();
  ctx.memo.accountExists = false;
  await resetDatabase(ctx.db);
}

/**
 * Registers the hooks of a suite whose app sends mail to a real SMTP server started
 * for it: one app and server for the suite, data and mailbox emptied before each test
 * (after the emails still being sent in the background), both closed at the end.
 */
export function useAppWithSmtp(env: Record<string, string | undefined>, bind: (app: App, smtp: TestSmtpServer, ctx: AppContext) => void): void {
  let smtp: TestSmtpServer;
  let app: App;
  before(async () => {
    smtp = await startSmtpServer();
    app = createTestApp({ SMTP_URL: smtp.url, ...env });
    bind(app, smtp, contextOf(app));
  });
  after(async () => {
    await closeTestApp(app);
    await smtp.close();
  });
  beforeEach(async () => {
    await resetData(contextOf(app));
    smtp.clear();
    smtp.setFailing(false);
  });
}
