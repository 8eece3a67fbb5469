// Outgoing email (SPEC A5, A8). Mail never touches `req`: links are built from the
// configured BASE_URL, never from a request's Host header. Each template exists as
// HTML and plain text under mail/templates/. With SMTP_URL set, messages go to that
// server through nodemailer; without, they are written as .eml files to
// <data>/outbox/ and their links logged, so a fresh install works without a mail server.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { lazyRequire } from '../lib/lazy-require.js';

// Loaded with the first email, not at every start.
const nodemailer = lazyRequire<typeof Nodemailer>('nodemailer');
import nunjucks from 'nunjucks';
import type { Clock } from '../lib/clock.js';
import { frenchDates } from '../lib/dates.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { metricsOff, type Metrics } from '../lib/metrics.js';
import { mailTemplatesDir } from '../lib/paths.js';
import { mailSubjects } from './messages.js';

function render(environment: nunjucks.Environment, name: string, context: Record<string, unknown>): Promise<string> {
  return new Promise((resolve, reject) => environment.render(name, context, (error, result) => (error ? reject(error) : resolve(result ?? ''))));
}

function pageLink(baseUrl: string, pathname: string, params: Record<string, string>): string {
  const url = new URL(pathname, baseUrl.replace(/\/*$/, '/'));
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

/** The application's mail: one per application context, closed with it. */
export class Mailer {
  // HTML is autoescaped; the text part is not HTML, so escaping would only garble it
  // (an `&` in a link would become `&amp;`).
  private readonly html = new nunjucks.Environment(new nunjucks.FileSystemLoader(mailTemplatesDir), { autoescape: true });
  private readonly text = new nunjucks.Environment(new nunjucks.FileSystemLoader(mailTemplatesDir), { autoescape: false });
  private smtp: Transporter | undefined;
  private outbox: Transporter | undefined;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly metrics: Metrics = metricsOff,
  ) {
    // Dates as the screens write them, in the site's zone: «22 novembre 2026 à 21 h 04».
    const dates = frenchDates(config.timeZone);
    for (const environment of [this.html, this.text]) {
      environment.addFilter('frenchDateTime', dates.dateTime);
      environment.addFilter('frenchDate', dates.date);
    }
  }

  /** Renders mail/templates/<template>.html.njk and .txt.njk and sends them to one address. */
  async send(template: string, to: string, data: Record<string, unknown>): Promise<void> {
    try {
      await this.deliver(template, to, data);
    } catch (error) {
      this.metrics.mail(template, 'failed');
      throw error;
    }
    this.metrics.mail(template, 'sent');
  }

  private async deliver(template: string, to: string, data: Record<string, unknown>): Promise<void> {
    const { config } = this;
    const context = { appName: config.appName, baseUrl: config.baseUrl, sentAt: this.clock.now(), ...data };
    const [html, text] = await Promise.all([render(this.html, `${template}.html.njk`, context), render(this.text, `${template}.txt.njk`, context)]);
    const subject = typeof data.subject === 'string' ? data.subject : (mailSubjects[template]?.(config.appName, data) ?? config.appName);
    // RFC 3834: an automatic message, which vacation and out-of-office replies leave unanswered.
    const message = { from: config.mailFrom, to, subject, text, html, headers: { 'Auto-Submitted': 'auto-generated' } };
    if (config.smtpUrl) {
      this.smtp ??= nodemailer().createTransport(config.smtpUrl);
      await this.smtp.sendMail(message);
      return;
    }
    this.outbox ??= nodemailer().createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    const info = await this.outbox.sendMail(message);
    const outbox = path.join(config.dataDir, 'outbox');
    await mkdir(outbox, { recursive: true, mode: 0o700 });
    const file = path.join(outbox, `${this.clock.nowMs()}-${template}-${randomBytes(4).toString('hex')}.eml`);
    await writeFile(file, info.message as Buffer, { mode: 0o600 });
    // Without a mail server a developer needs the links to act on them; in production a
    // link is a credential and never reaches the log (the file is readable by its owner only).
    const link = config.isProduction ? undefined : data.link;
    this.logger.info({ template, to, file, link }, 'SMTP_URL is not set: email written to the outbox');
  }

  // A5: a failed send is logged, then raised; the caller decides what to do with it.
  private async sendLogged(template: string, to: string, data: Record<string, unknown>): Promise<void> {
    try {
      await this.send(template, to, data);
    } catch (error) {
      this.logger.error({ err: error instanceof Error ? error.message : String(error), template, to }, 'email could not be sent');
      throw error;
    }
  }

  private link(pathname: string, params: Record<string, string>): string {
    return pageLink(this.config.baseUrl, pathname, params);
  }

  /** VerificationEmail: after registration and each resend; link to /auth/confirm. */
  verification(email: string, token: string): Promise<void> {
    return this.sendLogged('verification', email, { email, link: this.link('auth/confirm', { email, token }) });
  }

  /** PasswordResetEmail: link to /auth/reset. */
  passwordReset(email: string, token: string): Promise<void> {
    return this.sendLogged('password-reset', email, { email, link: this.link('auth/reset', { email, token }) });
  }

  /** Proves an existing account before it is linked to a single sign-on provider; link to /auth/sso/link/confirm. */
  ssoLinkConfirm(email: string, provider: string, token: string): Promise<void> {
    return this.sendLogged('sso-link-confirm', email, { email, provider, link: this.link('auth/sso/link/confirm', { email, token }) });
  }

  /** «Compte lié à <fournisseur>»: the account can now be opened through that provider. */
  accountLinked(email: string, provider: string): Promise<void> {
    return this.sendLogged('account-linked', email, { email, provider, link: this.link('account', {}) });
  }

  /** PasswordChangedEmail: notice after a password change. */
  passwordChanged(email: string): Promise<void> {
    return this.sendLogged('password-changed', email, { email, link: this.link('auth/forgot', { email }) });
  }

  /** InvitationEmail: an administrator created the account without a password; link to /auth/setup. */
  invitation(email: string, token: string): Promise<void> {
    return this.sendLogged('invitation', email, { email, link: this.link('auth/setup', { email, token }) });
  }

  /** EmailChangeConfirmEmail: to the new address, link to the API's confirmation route. */
  emailChangeConfirm(newEmail: string, token: string): Promise<void> {
    return this.sendLogged('email-change-confirm', newEmail, { email: newEmail, link: this.link('app/api/users/email/confirm', { token }) });
  }

  /** EmailChangeNotifyEmail: to the old address, so an unwanted change is noticed. */
  emailChangeNotify(oldEmail: string, newEmail: string): Promise<void> {
    return this.sendLogged('email-change-notify', oldEmail, { email: oldEmail, oldEmail, newEmail, link: this.link('auth/forgot', { email: oldEmail }) });
  }

  /** RecoveryCodeUsedEmail («Code de secours utilisé»): a recovery code opened a session. */
  recoveryCodeUsed(email: string, remaining: number): Promise<void> {
    return this.sendLogged('recovery-code-used', email, { email, remaining, link: this.link('account/2fa', {}) });
  }

  /** TwoFactorResetEmail: an administrator turned two-step verification off for the account. */
  twoFactorReset(email: string): Promise<void> {
    return this.sendLogged('two-factor-reset', email, { email, link: this.link('account/2fa', {}) });
  }

  /** PasskeyAddedEmail («Nouvelle clé d'accès ajoutée»): a passkey can now open the account. */
  passkeyAdded(email: string, name: string): Promise<void> {
    return this.sendLogged('passkey-added', email, { email, name, link: this.link('account', {}) });
  }

  /**
   * UnusualSignInEmail («Tentatives de connexion inhabituelles»): an account's budget of
   * wrong passwords or wrong codes is spent (services/sign-in-guard.ts); at most once a day.
   */
  unusualSignIn(email: string, stage: 'password' | 'second_factor', failures: number): Promise<void> {
    return this.sendLogged('unusual-sign-in', email, { email, stage, failures, link: this.link('auth/forgot', { email }) });
  }

  /**
   * AccountExistsEmail («Un compte existe déjà avec cette adresse»): someone signed up
   * with the address of an account; a reset link instead of a verification link (none
   * for a suspended account).
   */
  accountExists(email: string, resetToken: string | undefined): Promise<void> {
    return this.sendLogged('account-exists', email, { email, link: resetToken ? this.link('auth/reset', { email, token: resetToken }) : undefined });
  }

  /** Where messages go when SMTP_URL is unset. */
  outboxDirectory(): string | undefined {
    return this.config.smtpUrl ? undefined : path.join(this.config.dataDir, 'outbox');
  }

  /** Closes the SMTP connection (shutdown, tests). */
  close(): void {
    this.smtp?.close();
    this.smtp = undefined;
  }
}
