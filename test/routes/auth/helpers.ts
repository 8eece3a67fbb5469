// Helpers of the /auth route tests: a browser-like client keeping cookies, that opens
// a page, reads the form's hidden fields, lets time pass on the injectable clock
// (anti-bot minimum age) and submits.
import type { Express } from 'express';
import request from 'supertest';
import { setClock } from '../../../lib/clock.js';

export class FakeClock {
  current = Date.now();
  install(): this {
    setClock(() => this.current);
    return this;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/** Installs a fresh fake clock before each test (the root hook restores the real one). */
export function useFakeClock(): FakeClock {
  const clock = new FakeClock();
  beforeEach(() => {
    clock.current = Date.now();
    clock.install();
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
    readonly app: Express,
    readonly clock: FakeClock,
  ) {
    this.agent = request.agent(app);
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
