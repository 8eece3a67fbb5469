// Helpers of the /auth route tests: a browser-like client keeping cookies, that opens
// a page, reads the form's hidden fields, lets time pass on the app's clock (anti-bot
// minimum age) and submits.
import type { Express } from 'express';
import request from 'supertest';
import type { App } from './app.js';
import { contextOf } from './app.js';

/** A time source the tests move by hand; a FormClient puts it on its app's clock. */
export class FakeClock {
  current = Date.now();
  install(app: App): this {
    contextOf(app).clock.set(() => this.current);
    return this;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/** A fresh fake clock for each test (the root hook puts every app's real clock back). */
export function useFakeClock(): FakeClock {
  const clock = new FakeClock();
  beforeEach(() => {
    clock.current = Date.now();
  });
  return clock;
}

export function hiddenField(html: string, name: string): string | undefined {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  return match?.[1];
}

export interface SubmitOptions {
  /** Page to open first for the tokens (default: the path posted to). */
  from?: string;
  /** Time between render and submission (default 2 s, above the anti-bot minimum). */
  waitMs?: number;
  json?: boolean;
  /** Extra or overriding fields (e.g. a forged _t). */
  raw?: Record<string, string>;
  headers?: Record<string, string>;
}

export class FormClient {
  readonly agent: ReturnType<typeof request.agent>;

  constructor(
    readonly app: App,
    readonly clock: FakeClock,
  ) {
    clock.install(app);
    this.agent = request.agent(app as Express);
  }

  get(path: string) {
    return this.agent.get(path);
  }

  async tokens(path: string): Promise<{ _csrf: string; _t: string }> {
    const page = await this.agent.get(path);
    const csrf = hiddenField(page.text, '_csrf');
    const stamp = hiddenField(page.text, '_t');
    if (!csrf || !stamp) throw new Error(`no form tokens on ${path} (status ${page.status})`);
    return { _csrf: csrf, _t: stamp };
  }

  async submit(path: string, fields: Record<string, string>, options: SubmitOptions = {}) {
    const tokens = await this.tokens(options.from ?? path);
    this.clock.advance(options.waitMs ?? 2000);
    let post = this.agent.post(path).type('form');
    if (options.json) post = post.set('Accept', 'application/json');
    for (const [name, value] of Object.entries(options.headers ?? {})) post = post.set(name, value);
    return post.send({ ...tokens, _hp: '', ...fields, ...options.raw });
  }
}

export const strongPassword = 'correct horse battery';
