// Outgoing email (SPEC A5, A8). Mail never touches `req`: links are built from the
// configured BASE_URL, never from a request's Host header. Each template exists as
// HTML and plain text under mail/templates/. With SMTP_URL set, messages go to that
// server through nodemailer; without, they are written as .eml files to
// <data>/outbox/ and their links logged, so a fresh install works without a mail server.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import nunjucks from 'nunjucks';
import { activeConfig } from '../lib/config.js';
import { nowMs } from '../lib/clock.js';
import { logger } from '../lib/logger.js';
import { mailTemplatesDir } from '../lib/paths.js';
import { mailSubjects } from './messages.js';

// HTML is autoescaped; the text part is not HTML, so escaping would only garble it
// (an `&` in a link would become `&amp;`).
const htmlEnvironment = new nunjucks.Environment(new nunjucks.FileSystemLoader(mailTemplatesDir), { autoescape: true });
const textEnvironment = new nunjucks.Environment(new nunjucks.FileSystemLoader(mailTemplatesDir), { autoescape: false });

const transports = new Map<string, Transporter>();

function smtpTransport(url: string): Transporter {
  let transport = transports.get(url);
  if (!transport) {
    transport = nodemailer.createTransport(url);
    transports.set(url, transport);
  }
  return transport;
}

const outboxTransport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

function render(environment: nunjucks.Environment, name: string, context: Record<string, unknown>): Promise<string> {
  return new Promise((resolve, reject) =>
    environment.render(name, context, (error, result) => (error ? reject(error) : resolve(result ?? ''))),
  );
}

/** Renders mail/templates/<template>.html.njk and .txt.njk and sends them to one address. */
export async function sendMail(template: string, to: string, data: Record<string, unknown>): Promise<void> {
  const config = activeConfig();
  const context = { appName: config.appName, baseUrl: config.baseUrl, ...data };
  const [html, text] = await Promise.all([
    render(htmlEnvironment, `${template}.html.njk`, context),
    render(textEnvironment, `${template}.txt.njk`, context),
  ]);
  const subject = typeof data.subject === 'string' ? data.subject : (mailSubjects[template]?.(config.appName) ?? config.appName);
  const message = { from: config.mailFrom, to, subject, text, html };
  if (config.smtpUrl) {
    await smtpTransport(config.smtpUrl).sendMail(message);
    return;
  }
  const info = await outboxTransport.sendMail(message);
  const outbox = path.join(config.dataDir, 'outbox');
  await mkdir(outbox, { recursive: true });
  const file = path.join(outbox, `${nowMs()}-${template}-${randomBytes(4).toString('hex')}.eml`);
  await writeFile(file, info.message as Buffer, { mode: 0o600 });
  // Without a mail server the operator needs the links to act on them (development).
  logger.info({ template, to, file, link: data.link }, 'SMTP_URL is not set: email written to the outbox');
}

// A5: a failed send is logged, then raised; the caller decides what to do with it.
async function sendLogged(template: string, to: string, data: Record<string, unknown>): Promise<void> {
  try {
    await sendMail(template, to, data);
  } catch (error) {
    logger.error({ err: error instanceof Error ? error.message : String(error), template, to }, 'email could not be sent');
    throw error;
  }
}

function pageLink(baseUrl: string, pathname: string, params: Record<string, string>): string {
  const url = new URL(pathname, baseUrl.replace(/\/*$/, '/'));
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

/** VerificationEmail: after registration and each resend; link to /auth/confirm. */
export function sendVerificationEmail(email: string, token: string, baseUrl: string): Promise<void> {
  return sendLogged('verification', email, { email, link: pageLink(baseUrl, 'auth/confirm', { email, token }) });
}

/** PasswordResetEmail: link to /auth/reset. */
export function sendPasswordResetEmail(email: string, token: string, baseUrl: string): Promise<void> {
  return sendLogged('password-reset', email, { email, link: pageLink(baseUrl, 'auth/reset', { email, token }) });
}

/** PasswordChangedEmail: notice after a password change. */
export function sendPasswordChangedEmail(email: string): Promise<void> {
  const { baseUrl } = activeConfig();
  return sendLogged('password-changed', email, { email, link: pageLink(baseUrl, 'auth/forgot', { email }) });
}

/** InvitationEmail: an administrator created the account without a password; link to /auth/setup. */
export function sendInvitationEmail(email: string, token: string, baseUrl: string): Promise<void> {
  return sendLogged('invitation', email, { email, link: pageLink(baseUrl, 'auth/setup', { email, token }) });
}

/** EmailChangeConfirmEmail: to the new address, link to the API's confirmation route. */
export function sendEmailChangeConfirmEmail(newEmail: string, token: string, baseUrl: string): Promise<void> {
  return sendLogged('email-change-confirm', newEmail, {
    email: newEmail,
    link: pageLink(baseUrl, 'app/api/users/email/confirm', { token }),
  });
}

/** EmailChangeNotifyEmail: to the old address, so an unwanted change is noticed. */
export function sendEmailChangeNotifyEmail(oldEmail: string, newEmail: string): Promise<void> {
  const { baseUrl } = activeConfig();
  return sendLogged('email-change-notify', oldEmail, {
    email: oldEmail,
    oldEmail,
    newEmail,
    link: pageLink(baseUrl, 'auth/forgot', { email: oldEmail }),
  });
}

/** Tests and shutdown: closes the cached SMTP connections. */
export function closeMailTransports(): void {
  for (const transport of transports.values()) transport.close();
  transports.clear();
}
