// What the permission-matrix and bad-input tests read: the route rows every module
// registers (the same register() calls createApp runs, so the tests can list them
// before any app exists), and the data one request of the matrix acts on.
import type { AppContext } from '../../lib/context.js';
import { collectModules, type SiteRegistry } from '../../lib/modules.js';
import { IMAGE_CONTENT_TYPES } from '../../lib/uploads.js';
import type { User } from '../../models/auth/users.js';
import { createPage } from '../../models/pages/pages.js';
import type { AnyRoute, Access } from '../../routes/define.js';
import { addMedia } from '../../services/pages-media.js';
import { PNG_1X1, makeRole, makeUser, type LoggedIn } from './fixtures.js';
import { testModules } from './modules.js';

/** The rows as the test apps' modules declare them (core first, then pages, then the fixture modules). */
export function registeredRows(): SiteRegistry {
  return collectModules(testModules());
}

export interface MountedRow {
  /** `METHOD /full/path`, the key of the tests' tables. */
  key: string;
  method: AnyRoute['method'];
  path: string;
  access: Access;
  row: AnyRoute;
}

/** Every (method, path) a list of rows answers under `prefix`. */
export function mounted(rows: AnyRoute[], prefix = ''): MountedRow[] {
  return rows.flatMap((row) =>
    (Array.isArray(row.path) ? row.path : [row.path]).map((path) => {
      const full = prefix + (path === '/' && prefix ? '' : path);
      return { key: `${row.method.toUpperCase()} ${full}`, method: row.method, path: full, access: row.access, row };
    }),
  );
}

export function describeAccess(access: Access): string {
  return typeof access === 'object' ? access.permission : access;
}

export const unique = () => Math.random().toString(36).slice(2, 8);

/** What one request of a matrix may act on: made fresh for each test. */
export interface Fixture {
  ctx: AppContext;
  /** A plain user, holding the extra role heldRoleId. */
  target: User;
  heldRoleId: number;
  spareRoleId: number;
  caller?: User & LoggedIn;
  /** A page with two paragraph blocks (made on first use). */
  page(): Promise<{ id: number; slug: string; version: string }>;
  /** An image of the media library (made on first use). */
  media(): Promise<{ id: number }>;
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** The data of one test: another administrator, a target user with one extra role, a spare role. */
export async function makeFixture(ctx: AppContext): Promise<Fixture> {
  await makeUser(ctx, { role: 'admin' });
  const heldRoleId = await makeRole(ctx, [], `held-${unique()}`);
  const spareRoleId = await makeRole(ctx, [], `spare-${unique()}`);
  const target = await makeUser(ctx);
  await ctx.db('app_auth_user_roles').insert({ user_id: target.id, role_id: heldRoleId });
  return {
    ctx,
    target,
    heldRoleId,
    spareRoleId,
    page: once(async () => {
      const page = await createPage(ctx, {
        title: `Page ${unique()}`,
        blocks: [
          { type: 'paragraph', text: 'Premier' },
          { type: 'paragraph', text: 'Second' },
        ],
      });
      return { id: page.id, slug: page.slug, version: new Date(page.updated_at).toISOString() };
    }),
    media: once(async () => {
      const image = { buffer: PNG_1X1, type: 'png' as const, contentType: IMAGE_CONTENT_TYPES.png, size: PNG_1X1.length, originalName: 'fixture.png' };
      const media = await addMedia(ctx, null, image, { alt: 'Image' });
      return { id: media.id };
    }),
  };
}

/** One valid submission of an /admin row (test/routes/admin/permission-matrix.test.ts), keyed "METHOD /admin/path". */
export interface AdminSample {
  /** Status of this submission by a caller who is allowed (a form's success is 303). */
  ok: number;
  path(fixture: Fixture): string | Promise<string>;
  fields?(fixture: Fixture): Record<string, string> | Promise<Record<string, string>>;
}

/** One valid request of an /app/api row (test/routes/api/permission-matrix.test.ts), keyed "METHOD /path". */
export interface ApiSample {
  /** Status of this request by a caller who is allowed. */
  ok: number;
  path(fixture: Fixture): string | Promise<string>;
  body?(fixture: Fixture): object | Promise<object>;
}

export type FormFields = Record<string, string | string[]>;

/** A malformed submission of an /admin row (test/routes/admin/bad-input.test.ts): nothing is written. */
export interface AdminBadInput {
  /** The row, "METHOD /full/path". */
  row: string;
  path: string | ((fixture: Fixture) => Promise<string> | string);
  fields?: FormFields | ((fixture: Fixture) => Promise<FormFields>);
  /** A file sent in this field (multipart); its bytes are not an image. */
  notAnImage?: string;
  /** Posted without the CSRF field. */
  noToken?: boolean;
  status: number;
  why: string;
  /** A text that must fit on one line (lib/validation.ts): the page says so. */
  notSingleLine?: boolean;
}

/** A malformed request of an /app/api row (test/routes/api/bad-input.test.ts): nothing is written. */
export interface ApiBadInput {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  route: string;
  path: string;
  body?: unknown;
  raw?: { type: string; data: string };
  headers?: Record<string, string>;
  status: number;
  why: string;
  /** The field the error names, with the message of a text that must fit on one line (lib/validation.ts). */
  notSingleLine?: string;
}
