// A real SMTP server for the tests (smtp-server on 127.0.0.1, free port): every
// message the app sends is received, parsed, and its links can be followed.
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
  from: string;
  /** Header values by lower-case name, as mailparser reads them. */
  headers: Map<string, unknown>;
}

export interface TestSmtpServer {
  url: string;
  messages: ReceivedMessage[];
  waitForMessage(to: string, timeoutMs?: number): Promise<ReceivedMessage>;
  linkIn(message: ReceivedMessage, pathPrefix: string): URL;
  setFailing(on: boolean): void;
  clear(): void;
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ReceivedMessage[] = [];
  const waiters: Array<{ to: string; resolve(message: ReceivedMessage): void }> = [];
  let failing = false;

  const deliver = (message: ReceivedMessage) => {
    messages.push(message);
    for (const waiter of [...waiters]) {
      if (message.to.includes(waiter.to)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  };

  const server = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS offered, so nodemailer does not try TLS.
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (failing) return callback(Object.assign(new Error('Mailbox unavailable (test server set to fail)'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          deliver({
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            headers: parsed.headers,
          });
          callback();
        },
        (error) => callback(error),
      );
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitForMessage(to, timeoutMs = 5000) {
      const wanted = to.toLowerCase();
      const already = messages.find((message) => message.to.includes(wanted));
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const waiter = {
          to: wanted,
          resolve: (message: ReceivedMessage) => {
            clearTimeout(timer);
            resolve(message);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no email to ${to} within ${timeoutMs} ms (received: ${messages.map((m) => m.to.join(',')).join('; ') || 'none'})`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    linkIn(message, pathPrefix) {
      const links = message.text.match(/https?:\/\/[^\s<>"]+/g) ?? [];
      for (const link of links) {
        const url = new URL(link);
        if (url.pathname.startsWith(pathPrefix)) return url;
      }
      throw new Error(`no link to ${pathPrefix} in the email "${message.subject}"`);
    },
    setFailing(on) {
      failing = on;
    },
    clear() {
      messages.length = 0;
    },
    close() {
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
