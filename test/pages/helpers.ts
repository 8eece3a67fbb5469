// Helpers of the pages tests: users holding chosen permissions with their session
// cookie, pages created straight through the model, and raw rows for data an older
// version (or another writer) may have stored.
import { once } from 'node:events';
import type { AppContext } from '../../lib/context.js';
import { createPage, type PageInput } from '../../models/pages/pages.js';
import { caller } from '../support/fixtures.js';

/** A user whose role holds exactly these permissions ('admin' for the system role). */
export async function userWith(ctx: AppContext, permissions: string[] | 'admin'): Promise<{ id: number; cookie: string }> {
  const user = await caller(ctx, permissions === 'admin' ? { role: 'admin', password: null } : { permissions, password: null });
  return { id: user.id, cookie: user.cookie };
}

export async function makePage(ctx: AppContext, input: Partial<PageInput> & { title: string }): Promise<{ id: number; slug: string }> {
  return createPage(ctx, input);
}

/** A chain of public pages `p1/p2/…/pN`; returns their ids from the root down. */
export async function makeChain(ctx: AppContext, depth: number, prefix = 'p', last: Partial<PageInput> = {}): Promise<number[]> {
  const ids: number[] = [];
  let parent: number | null = null;
  for (let level = 1; level <= depth; level++) {
    const page: { id: number } = await createPage(ctx, {
      title: `${prefix}${level}`,
      slug: `${prefix}${level}`,
      parent_id: parent,
      ...(level === depth ? last : {}),
    });
    ids.push(page.id);
    parent = page.id;
  }
  return ids;
}

/** A page row written without the model's checks (as an older version could have stored it). */
export async function storeRawPage(
  ctx: AppContext,
  row: { title: string; slug: string; blocks?: unknown[]; seo?: object; parent_id?: number | null },
): Promise<number> {
  const [inserted] = await ctx
    .db('app_pages')
    .insert({ ...row, blocks: JSON.stringify(row.blocks ?? []), seo: JSON.stringify(row.seo ?? {}) })
    .returning('id');
  return inserted.id;
}

export { countStatements } from '../support/statements.js';
/** A tiny valid PNG (1×1). */
export { PNG_1X1 as PNG_BYTES } from '../support/fixtures.js';

/** Resolves once the app's read cache listens. */
export async function listening(ctx: AppContext): Promise<void> {
  if (!ctx.publicCache.usable) await once(ctx.publicCache.events, 'listening', { signal: AbortSignal.timeout(10_000) });
}

/** Runs `write`, then waits until `reader` has applied the notification it caused. */
export async function notified(reader: AppContext, write: () => Promise<unknown>): Promise<void> {
  const seen = once(reader.publicCache.events, 'change', { signal: AbortSignal.timeout(10_000) });
  await write();
  await seen;
  // The first change seen may be an earlier commit's: a round trip after the write's
  // commit makes sure its own notification has been handled too.
  await reader.publicCache.caughtUp();
  // The notifications of one commit arrive together: let the rest of them be applied.
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Waits until `reader` has applied every notification committed so far: they arrive in
 * commit order, so once an empty one sent now has arrived, the earlier ones have too (a
 * fill that overlapped one of them would not have been kept).
 */
export async function settled(reader: AppContext): Promise<void> {
  await notified(reader, () => reader.db.raw(`SELECT pg_notify('site_public_changes', '{}')`));
}

/** Blocks (or one block) without their ids, which the server gives at random: what a test compares with what it wrote. */
export function withoutIds<T>(blocks: T): T {
  const strip = (block: unknown) => {
    if (!block || typeof block !== 'object') return block;
    const { id: _id, ...rest } = block as Record<string, unknown>;
    return rest;
  };
  return (Array.isArray(blocks) ? blocks.map(strip) : strip(blocks)) as T;
}
