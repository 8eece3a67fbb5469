// Without SMTP_URL, messages are files in <DATA_DIR>/outbox. Their links are credentials:
// logged in development (the developer needs them), never in production.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { closeTestApp, contextOf, createTestApp, type App } from '../support/app.js';

function captureInfo(app: App): Array<Record<string, unknown>> {
  const records: Array<Record<string, unknown>> = [];
  const { logger } = contextOf(app);
  const original: (...args: unknown[]) => void = logger.info.bind(logger);
  const spy = (details: unknown, ...rest: unknown[]): void => {
    if (details && typeof details === 'object') records.push(details as Record<string, unknown>);
    original(details, ...rest);
  };
  logger.info = spy;
  return records;
}

for (const [nodeEnv, logsLink] of [
  ['production', false],
  ['development', true],
] as const) {
  describe(`the outbox under NODE_ENV=${nodeEnv}`, () => {
    let app: App;
    let dataDir: string;
    before(() => {
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'site-outbox-'));
      app = createTestApp({ NODE_ENV: nodeEnv, DATA_DIR: dataDir, SMTP_URL: undefined, PASSWORD_HASH_COST: '11' });
    });
    after(async () => {
      await closeTestApp(app);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it(`writes the message readable by its owner only, and ${logsLink ? 'logs' : 'never logs'} its link`, async () => {
      const records = captureInfo(app);
      await contextOf(app).mailer.passwordReset('someone@example.com', 'secret-token-value');
      const outbox = path.join(dataDir, 'outbox');
      const files = readdirSync(outbox);
      expect(files).to.have.length(1);
      expect(statSync(path.join(outbox, files[0])).mode & 0o777).to.equal(0o600);
      const logged = records.find((record) => record.template === 'password-reset');
      expect(logged, 'the outbox line').to.not.equal(undefined);
      if (logsLink) expect(String(logged!.link)).to.include('secret-token-value');
      else expect(JSON.stringify(records)).to.not.include('secret-token-value');
    });
  });
}
