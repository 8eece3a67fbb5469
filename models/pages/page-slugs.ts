// Free slugs among siblings: the first of `base`, `base-2`, `base-3`… that no sibling
// uses, claimed under the unique index on (COALESCE(parent_id, 0), slug), retried in a
// savepoint when a concurrent transaction took it first.
import { inTransaction, type AppContext } from '../../lib/context.js';
import { ConflictError } from '../../lib/errors.js';
import { pageMessages } from './messages.js';
import { PAGES_TABLE, SIBLING_SLUG_INDEX } from './schema.js';
import { slugCandidate, SLUG_MAX_LENGTH } from './slugs.js';

const SLUG_ATTEMPTS = 40;

function isSlugConflict(error: unknown): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError?.code === '23505' && pgError.constraint === SIBLING_SLUG_INDEX;
}

/** The first of `base`, `base-2`, `base-3`… not used by a sibling (other than the page itself). */
async function freeSlug(ctx: AppContext, base: string, parentId: number | null, exceptId: number | null): Promise<string> {
  // Every candidate starts with the first characters of the base (suffixes may shorten it).
  const prefix = base.slice(0, SLUG_MAX_LENGTH - 8);
  const query = ctx
    .db(PAGES_TABLE)
    .whereRaw('COALESCE(parent_id, 0) = ?', [parentId ?? 0])
    .andWhere('slug', 'like', `${prefix}%`);
  if (exceptId !== null) query.andWhereNot('id', exceptId);
  const taken = new Set<string>(await query.pluck('slug'));
  for (let n = 1; ; n++) {
    const candidate = slugCandidate(base, n);
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * Runs `write` with a free slug. The unique index on (parent, slug) is the guarantee:
 * if a concurrent transaction took the slug first, the savepoint is rolled back and
 * the next free slug is tried. `tx` must be inside a transaction.
 */
export async function withFreeSlug<T>(
  tx: AppContext,
  base: string,
  parentId: number | null,
  exceptId: number | null,
  write: (savepoint: AppContext, slug: string) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
    const slug = await freeSlug(tx, base, parentId, exceptId);
    try {
      return await inTransaction(tx, (savepoint) => write(savepoint, slug));
    } catch (error) {
      if (!isSlugConflict(error)) throw error;
    }
  }
  throw new ConflictError(pageMessages.slugExhausted);
}
