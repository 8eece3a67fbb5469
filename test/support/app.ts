import type { Express } from 'express';
import { createApp } from '../../app.js';
import { loadConfig, type Config } from '../../lib/config.js';
import { db } from '../../lib/db.js';
import { settleBackgroundTasks } from '../../controllers/auth/background.js';
import { closeMailTransports } from '../../mail/index.js';
import { resetDatabase, testDatabase } from './database.js';
import { startSmtpServer, type TestSmtpServer } from './smtp.js';

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
    APP_NAME: 'Site de test',
    BASE_URL: 'http://site.test',
    ...env,
  });
}

export function createTestApp(env: Record<string, string | undefined> = {}): Express {
  return createApp(testConfig(env));
}

/** Empties every table a test may have written (keeps migrations' reference data). */
export async function resetData(): Promise<void> {
  await resetDatabase(db());
}

/**
 * Registers the hooks of a suite whose app sends mail to a real SMTP server started
 * for it: one app and server for the suite, data and mailbox emptied before each test
 * (after the emails still being sent in the background), both closed at the end.
 */
export function useAppWithSmtp(env: Record<string, string | undefined>, bind: (app: Express, smtp: TestSmtpServer) => void): void {
  let smtp: TestSmtpServer;
  before(async () => {
    smtp = await startSmtpServer();
    bind(createTestApp({ SMTP_URL: smtp.url, ...env }), smtp);
  });
  after(async () => {
    await settleBackgroundTasks();
    closeMailTransports();
    await smtp.close();
  });
  beforeEach(async () => {
    await settleBackgroundTasks();
    await resetData();
    smtp.clear();
    smtp.setFailing(false);
  });
}
