// Request log lines: one JSON object a line outside a terminal (production, collectors),
// static files at debug level so they do not bury the lines that matter, and readable
// lines (pino-pretty) for a person at a terminal in development.
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { createLogger, prettyLogsWanted } from '../../lib/logger.js';
import { contextOf, createTestApp, type App } from '../support/app.js';

interface Line {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** Collects what a logger writes, as text. */
function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('request log lines', () => {
  let app: App;
  let ctx: AppContext;
  let output: ReturnType<typeof sink>;
  const streamKey = pino.symbols.streamSym as unknown as 'stream';
  let original: unknown;

  before(() => {
    app = createTestApp({ LOG_LEVEL: 'debug' });
    ctx = contextOf(app);
  });
  beforeEach(() => {
    output = sink();
    const logger = ctx.logger as unknown as Record<'stream', unknown>;
    original = logger[streamKey];
    logger[streamKey] = output.stream;
  });
  afterEach(() => {
    (ctx.logger as unknown as Record<'stream', unknown>)[streamKey] = original;
  });

  /** The `request` lines written so far, each parsed from one line of JSON. */
  function requestLines(): Line[] {
    return output
      .text()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line)
      .filter((line) => line.msg === 'request');
  }

  it('writes one JSON line at info level for a page, with its id, method, path without query, status and duration', async () => {
    const answer = await request(app).get('/auth/login?next=%2Fadmin');
    expect(answer.status).to.equal(200);
    const lines = requestLines();
    expect(lines).to.have.length(1);
    const [line] = lines;
    expect(line.level).to.equal(30);
    expect(line).to.include({ requestId: answer.headers['x-request-id'], method: 'GET', path: '/auth/login', status: 200 });
    expect(line.durationMs).to.be.a('number');
    expect(
      output
        .text()
        .trim()
        .split('\n')
        .every((each) => each.startsWith('{') && each.endsWith('}')),
    ).to.equal(true);
  });

  it('logs static files (assets and uploads) at debug level', async () => {
    expect((await request(app).get('/assets/css/admin.css')).status).to.equal(200);
    expect((await request(app).get('/uploads/media/nothing-here.png')).status).to.equal(404);
    const lines = requestLines();
    expect(lines.map((line) => [line.path, line.level])).to.deep.equal([
      ['/assets/css/admin.css', 20],
      ['/uploads/media/nothing-here.png', 20],
    ]);
  });

  it('leaves static files out at the default info level', async () => {
    const quiet = createTestApp({ LOG_LEVEL: 'info' });
    const logger = contextOf(quiet).logger as unknown as Record<'stream', unknown>;
    const collected = sink();
    logger[streamKey] = collected.stream;
    await request(quiet).get('/assets/css/admin.css');
    await request(quiet).get('/auth/login');
    const paths = collected
      .text()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line)
      .filter((line) => line.msg === 'request')
      .map((line) => line.path);
    expect(paths).to.deep.equal(['/auth/login']);
  });
});

describe('log format', () => {
  it('is readable only for a terminal outside production', () => {
    expect(prettyLogsWanted({ isProduction: false }, { isTTY: true })).to.equal(true);
    expect(prettyLogsWanted({ isProduction: false }, { isTTY: false })).to.equal(false);
    expect(prettyLogsWanted({ isProduction: false }, {})).to.equal(false);
    expect(prettyLogsWanted({ isProduction: true }, { isTTY: true })).to.equal(false);
  });

  it('writes a request as «method path status duration» on one readable line', () => {
    const output = sink();
    const logger = createLogger('info', undefined, { pretty: true, destination: output.stream });
    logger.info({ requestId: 'r1', method: 'GET', path: '/admin', status: 200, durationMs: 12.5 }, 'request');
    logger.warn({ outbox: '/srv/outbox' }, 'SMTP_URL is not set');
    const lines = output.text().trim().split('\n');
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^\[\d{2}:\d{2}:\d{2}\] INFO: GET \/admin 200 12\.5 ms \{"requestId":"r1"\}$/);
    expect(lines[1]).to.match(/WARN: SMTP_URL is not set \{"outbox":"\/srv\/outbox"\}$/);
  });
});
