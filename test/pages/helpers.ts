// Helpers of the pages tests: users holding chosen permissions, their session cookie,
// pages created straight through the model, and a statement counter on the pool.
import { createPage, type PageInput } from '../../models/pages/pages.js';
import { caller, logIn } from '../support/fixtures.js';

/** A user whose role holds exactly these permissions ('admin' for the system role). */
export async function userWith(permissions: string[] | 'admin'): Promise<{ id: number; cookie: string }> {
  const user = await caller(permissions === 'admin' ? { role: 'admin', password: null } : { permissions, password: null });
  return { id: user.id, cookie: user.cookie };
}

export async function cookieFor(userId: number): Promise<string> {
  return (await logIn({ id: userId })).cookie;
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

export { countStatements } from '../support/statements.js';
/** A tiny valid PNG (1×1). */
export { PNG_1X1 as PNG_BYTES } from '../support/fixtures.js';
