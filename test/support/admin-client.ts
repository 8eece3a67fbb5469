// A browser-like client for the admin and profile forms: a session cookie for a user
// (test/support/fixtures.ts), the CSRF cookie and field read from the page's form,
// urlencoded posts, and flash messages read from the page a redirect leads to.
import request from 'supertest';
import { contextOf, type App } from './app.js';
import { caller, type MakeUserOptions } from './fixtures.js';
import type { User } from '../../models/auth/users.js';

export class AdminClient {
  private csrfCookie = '';
  constructor(
    readonly app: App,
    readonly user: User & { cookie: string; sid: string; publicId: string },
  ) {}

  static async as(app: App, options: MakeUserOptions = {}): Promise<AdminClient> {
    return new AdminClient(app, await caller(contextOf(app), options));
  }

  cookies(): string {
    return [this.user.cookie, this.csrfCookie].filter(Boolean).join('; ');
  }

  private remember(response: request.Response): void {
    const setCookie = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
    for (const line of setCookie) {
      const pair = line.split(';')[0];
      if (pair.startsWith('site.csrf=')) this.csrfCookie = pair;
    }
  }

  async get(path: string): Promise<request.Response> {
    const response = await request(this.app).get(path).set('Cookie', this.cookies());
    this.remember(response);
    return response;
  }

  /** Opens `from` for a token, then posts the fields (urlencoded, arrays repeated). */
  async post(path: string, fields: Record<string, string | string[]> = {}, from = '/account'): Promise<request.Response> {
    const page = await this.get(from);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    if (!token) throw new Error(`no CSRF token on ${from} (status ${page.status})`);
    return this.postRaw(path, { _csrf: token, ...fields });
  }

  async postRaw(path: string, fields: Record<string, string | string[]>): Promise<request.Response> {
    const body = new URLSearchParams();
    for (const [key, value] of Object.entries(fields)) for (const item of ([] as string[]).concat(value)) body.append(key, item);
    const response = await request(this.app).post(path).set('Cookie', this.cookies()).type('form').send(body.toString());
    this.remember(response);
    return response;
  }

  /** Follows a 303 and returns the page, where the flash message shows. */
  async follow(response: request.Response): Promise<request.Response> {
    if (response.status !== 303) throw new Error(`expected 303, got ${response.status}: ${response.text.slice(0, 500)}`);
    return this.get(response.headers.location);
  }

  async token(from = '/account'): Promise<string> {
    const page = await this.get(from);
    return /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
  }
}

/** Text of the page without tags (for assertions on messages). */
export function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

export const ADMIN_PERMISSIONS = ['admin.access', 'users.view', 'users.manage', 'roles.view', 'roles.manage', 'pages.view', 'pages.manage', 'pages.publish'];
