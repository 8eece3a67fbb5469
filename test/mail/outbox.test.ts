// Without SMTP_URL, messages are files in <DATA_DIR>/outbox. Their links are credentials:
// logged in development (the developer needs them), never in production.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { AdminClient, textOf } from '../support/admin-client.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makeUser } from '../support/fixtures.js';
import { FormClient, useFakeClock } from '../support/form-client.js';

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
      // In production the outbox is a choice said out loud (MAIL_OUTBOX=true).
      app = createTestApp({
        NODE_ENV: nodeEnv,
        DATA_DIR: dataDir,
        SMTP_URL: undefined,
        MAIL_OUTBOX: nodeEnv === 'production' ? 'true' : undefined,
        PASSWORD_HASH_COST: '11',
      });
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

describe('screens when the emails go to the outbox (MAIL_OUTBOX)', () => {
  let app: App;
  let dataDir: string;
  const clock = useFakeClock();
  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'site-outbox-screens-'));
    app = createTestApp({ DATA_DIR: dataDir, SMTP_URL: undefined });
  });
  beforeEach(() => resetData(contextOf(app)));
  after(async () => {
    await closeTestApp(app);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an invitation: the screen names the folder it was written to, never «envoyée à»', async () => {
    const admin = await AdminClient.as(app, { role: 'admin' });
    const created = await admin.post('/admin/users', { name: 'Carol', email: 'carol@example.com', role: 'user', password: '' }, '/admin/users/new');
    expect(created.status).to.equal(303);
    const shown = textOf((await admin.follow(created)).text);
    const folder = path.join(dataDir, 'outbox');
    // textOf() reads no-break spaces as spaces.
    expect(shown).to.include(`L’invitation pour carol@example.com n’est pas envoyée`).and.include(`« ${folder} »`);
    expect(shown).not.to.include('Une invitation est envoyée');
    expect(readdirSync(folder).filter((file) => file.includes('invitation'))).to.have.length(1);

    const user = await contextOf(app).db('app_auth_users').where({ email: 'carol@example.com' }).first('id');
    const resent = await admin.post(`/admin/users/${user!.id}/resend-invitation`, {}, `/admin/users/${user!.id}`);
    expect(textOf((await admin.follow(resent)).text))
      .to.include('sans être envoyée')
      .and.include(folder);
  });

  it('a reset link asked by a visitor: the page says the message is kept on the server, without naming its folders', async () => {
    await makeUser(contextOf(app), { email: 'ada@example.com' });
    const answer = await new FormClient(app, clock).submit('/auth/forgot', { email: 'ada@example.com' });
    expect(answer.status).to.equal(200);
    const text = textOf(answer.text);
    expect(text).to.include('sans être envoyé').and.include('gardé sur le serveur');
    expect(text).not.to.include(dataDir);
    expect(text).not.to.include('vient d’y être envoyé');
  });

  it('with SMTP_URL the screens say «envoyée à» as before', async () => {
    const smtpApp = createTestApp({ SMTP_URL: 'smtp://127.0.0.1:9' });
    try {
      expect(contextOf(smtpApp).config.mailOutbox).to.equal(false);
      await makeUser(contextOf(smtpApp), { email: 'someone@example.com' });
      const answer = await new FormClient(smtpApp, clock).submit('/auth/forgot', { email: 'nobody@example.com' });
      expect(textOf(answer.text)).to.include('vient d’y être envoyé').and.not.include('gardé sur le serveur');
    } finally {
      await closeTestApp(smtpApp);
    }
  });
});
