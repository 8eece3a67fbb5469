import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Mailer } from '../../mail/index.js';
import { closeTestApp, contextOf, createTestApp, type App } from '../support/app.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';

const FORBIDDEN_WORDS = /e-mail|avec succès/i;

describe('mail', () => {
  describe('with SMTP_URL set', () => {
    let smtp: TestSmtpServer;
    let app: App;
    let mailer: Mailer;
    before(async () => {
      smtp = await startSmtpServer();
      app = createTestApp({ SMTP_URL: smtp.url, APP_NAME: 'Atelier & Co' });
      mailer = contextOf(app).mailer;
    });
    after(async () => {
      await closeTestApp(app);
      await smtp.close();
    });
    beforeEach(() => {
      smtp.clear();
      smtp.setFailing(false);
    });

    it('delivers the verification email through the SMTP server with a link to /auth/confirm built from BASE_URL', async () => {
      await mailer.verification('ada@example.com', 'tok-123');
      const message = await smtp.waitForMessage('ada@example.com');
      expect(message.subject).to.equal('Vérification du courriel — Atelier & Co');
      const link = smtp.linkIn(message, '/auth/confirm');
      expect(link.origin).to.equal('http://site.test');
      expect(link.searchParams.get('email')).to.equal('ada@example.com');
      expect(link.searchParams.get('token')).to.equal('tok-123');
      expect(message.html).to.include('Atelier &amp; Co');
      expect(message.text).to.include('Atelier & Co');
      expect(message.html).to.include(link.toString().replace(/&/g, '&amp;'));
    });

    it('sends each of the eight templates in French with the application name and no forbidden wording', async () => {
      await mailer.verification('a@example.com', 't1');
      await mailer.passwordReset('b@example.com', 't2');
      await mailer.passwordChanged('c@example.com');
      await mailer.invitation('d@example.com', 't3');
      await mailer.emailChangeConfirm('e@example.com', 't4');
      await mailer.emailChangeNotify('f@example.com', 'e@example.com');
      await mailer.recoveryCodeUsed('g@example.com', 9);
      await mailer.twoFactorReset('h@example.com');
      expect(smtp.messages).to.have.length(8);
      for (const message of smtp.messages) {
        expect(message.text, message.subject).to.include('Atelier & Co');
        expect(message.text + message.html + message.subject).not.to.match(FORBIDDEN_WORDS);
      }
      expect(smtp.linkIn(await smtp.waitForMessage('b@example.com'), '/auth/reset').searchParams.get('token')).to.equal('t2');
      expect(smtp.linkIn(await smtp.waitForMessage('d@example.com'), '/auth/setup').searchParams.get('token')).to.equal('t3');
      const confirm = smtp.linkIn(await smtp.waitForMessage('e@example.com'), '/app/api/users/email/confirm');
      expect(confirm.searchParams.get('token')).to.equal('t4');
      expect((await smtp.waitForMessage('f@example.com')).text).to.include('e@example.com');
      const recovery = await smtp.waitForMessage('g@example.com');
      expect(recovery.subject).to.equal('Code de secours utilisé — Atelier & Co');
      expect(recovery.text).to.include('Codes de secours restants\u00a0: 9');
      expect(smtp.linkIn(recovery, '/account/2fa').origin).to.equal('http://site.test');
      const reset = await smtp.waitForMessage('h@example.com');
      expect(reset.subject).to.equal('Vérification en deux étapes désactivée — Atelier & Co');
      expect(smtp.linkIn(reset, '/account/2fa').pathname).to.equal('/account/2fa');
    });

    it('marks every message Auto-Submitted: auto-generated (RFC 3834), so autoresponders do not answer it', async () => {
      await mailer.verification('a@example.com', 't1');
      await mailer.passwordChanged('c@example.com');
      expect(smtp.messages).to.have.length(2);
      for (const message of smtp.messages) expect(message.headers.get('auto-submitted'), message.subject).to.equal('auto-generated');
    });

    it('raises the failure when the server refuses the message', async () => {
      smtp.setFailing(true);
      let caught: unknown;
      try {
        await mailer.passwordReset('b@example.com', 't2');
      } catch (error) {
        caught = error;
      }
      expect(caught).to.be.instanceOf(Error);
      expect(smtp.messages).to.have.length(0);
    });
  });

  describe('without SMTP_URL', () => {
    let app: App;
    before(() => (app = createTestApp({ SMTP_URL: undefined })));
    after(() => closeTestApp(app));

    it('writes the message as an .eml file to the outbox, marked Auto-Submitted as a sent one', async () => {
      const { config, mailer } = contextOf(app);
      const outbox = path.join(config.dataDir, 'outbox');
      rmSync(outbox, { recursive: true, force: true });
      await mailer.invitation('invite@example.com', 'tok-xyz');
      const files = readdirSync(outbox);
      expect(files).to.have.length(1);
      expect(files[0]).to.match(/invitation.*\.eml$/);
      const raw = readFileSync(path.join(outbox, files[0]), 'utf8');
      expect(raw).to.match(/^To: invite@example\.com$/m);
      expect(raw).to.include('tok-xyz');
      expect(raw).to.match(/^Auto-Submitted: auto-generated$/m);
    });
  });
});
