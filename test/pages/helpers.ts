// Helpers of the pages tests: users holding chosen permissions, their session cookie,
// pages created straight through the model, and a statement counter on the pool.
import signature from 'cookie-signature';
import { activeConfig } from '../../lib/config.js';
import { db } from '../../lib/db.js';
import { createSession } from '../../models/auth/sessions.js';
import { insertUser } from '../../models/auth/users.js';
import { createPage, type PageInput } from '../../models/pages/pages.js';

let counter = 0;

/** A user whose role holds exactly these permissions ('admin' for the system role). */
export async function userWith(permissions: string[] | 'admin'): Promise<{ id: number; cookie: string }> {
  counter += 1;
  let role = 'admin';
  if (permissions !== 'admin') {
    role = `role_${counter}_${Date.now().toString(36)}`;
    const [created] = await db()('app_auth_roles').insert({ name: role, description: '' }).returning('id');
    if (permissions.length) {
      await db()('app_auth_role_permissions').insert(permissions.map((key) => ({ role_id: created.id, permission_key: key })));
    }
  }
  const user = await insertUser({ email: `user${counter}@example.com`, name: `User ${counter}`, role, emailVerified: true });
  return { id: user.id, cookie: await cookieFor(user.id) };
}

export async function cookieFor(userId: number): Promise<string> {
  const sid = await createSession(userId);
  return `site.sid=${encodeURIComponent('s:' + signature.sign(sid, activeConfig().sessionSecret))}`;
}

export async function makePage(input: Partial<PageInput> & { title: string }): Promise<{ id: number; slug: string }> {
  return createPage(input as PageInput);
}

/** A chain of public pages `p1/p2/…/pN`; returns their ids from the root down. */
export async function makeChain(depth: number, prefix = 'p', last: Partial<PageInput> = {}): Promise<number[]> {
  const ids: number[] = [];
  let parent: number | null = null;
  for (let level = 1; level <= depth; level++) {
    const page: { id: number } = await createPage({ title: `${prefix}${level}`, slug: `${prefix}${level}`, parent_id: parent, ...(level === depth ? last : {}) });
    ids.push(page.id);
    parent = page.id;
  }
  return ids;
}

/** Counts the SQL statements issued on the pool while `run` executes. */
export async function countStatements<T>(run: () => Promise<T>): Promise<{ result: T; count: number; sql: string[] }> {
  const sql: string[] = [];
  const listener = (query: { sql: string }) => sql.push(query.sql);
  db().on('query', listener);
  try {
    const result = await run();
    return { result, count: sql.length, sql };
  } finally {
    db().removeListener('query', listener);
  }
}

/** A tiny valid PNG (1×1). */
export const PNG_BYTES = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1f3a8e60000000049454e44ae426082',
  'hex',
);
