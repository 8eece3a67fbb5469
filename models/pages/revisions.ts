// The history of a page: its revisions, newest first, each with its author and its
// state (the live one, the pending draft, a scheduled draft, or superseded).
import type { AppContext } from '../../lib/context.js';
import { NotFoundError } from '../../lib/errors.js';
import { pageMessages, revisionMessages } from './messages.js';
import { CONTENT_COLUMNS, contentOf, REVISIONS_TABLE, revisionState, type PageContent, type RevisionRowRead, type RevisionState } from './revision-store.js';
import { PAGES_TABLE } from './schema.js';

export { restoreRevision } from './drafts.js';

interface RevisionAuthor {
  id: number;
  name: string;
}

export interface RevisionSummary {
  number: number;
  /** When the revision was recorded. */
  recorded_at: Date;
  /** null once the account is gone (or for a write without an account). */
  author: RevisionAuthor | null;
  state: RevisionState;
}

export interface Revision extends RevisionSummary {
  page_id: number;
  content: PageContent;
}

const USERS_TABLE = 'app_auth_users';

async function revisionStateOf(ctx: AppContext, pageId: number) {
  const page = await ctx.db(PAGES_TABLE).where({ id: pageId }).first(['id', 'published_revision', 'draft_revision', 'scheduled_at', 'revision']);
  if (!page) throw new NotFoundError(pageMessages.pageNotFound);
  return page;
}

function authorOf(row: { author_id: number | null; author_name: string | null }): RevisionAuthor | null {
  return row.author_id === null ? null : { id: row.author_id, name: row.author_name ?? '' };
}

/** Newest first; two statements whatever the page's history. */
export async function listRevisions(
  ctx: AppContext,
  pageId: number,
  { limit = 50, offset = 0 }: { limit?: number; offset?: number } = {},
): Promise<{ items: RevisionSummary[]; total: number }> {
  const page = await revisionStateOf(ctx, pageId);
  const rows = await ctx
    .db(`${REVISIONS_TABLE} as r`)
    .leftJoin(`${USERS_TABLE} as u`, 'u.id', 'r.author_id')
    .where('r.page_id', pageId)
    .orderBy('r.number', 'desc')
    .limit(limit)
    .offset(offset)
    .select<Array<{ number: number; recorded_at: Date; author_id: number | null; author_name: string | null; total: string }>>([
      'r.number',
      'r.recorded_at',
      'r.author_id',
      'u.name as author_name',
      ctx.db.raw('count(*) OVER () AS total'),
    ]);
  let total = rows.length ? Number(rows[0].total) : 0;
  if (!rows.length && offset > 0) total = Number((await ctx.db(REVISIONS_TABLE).where({ page_id: pageId }).count({ n: '*' }).first())?.n ?? 0);
  return {
    items: rows.map((row) => ({ number: row.number, recorded_at: row.recorded_at, author: authorOf(row), state: revisionState(page, row.number) })),
    total,
  };
}

export async function getRevision(ctx: AppContext, pageId: number, number: number): Promise<Revision> {
  const page = await revisionStateOf(ctx, pageId);
  const row: (RevisionRowRead & { author_name: string | null }) | undefined = await ctx
    .db(`${REVISIONS_TABLE} as r`)
    .leftJoin(`${USERS_TABLE} as u`, 'u.id', 'r.author_id')
    .where({ 'r.page_id': pageId, 'r.number': number })
    .first(['r.number', 'r.recorded_at', 'r.author_id', 'u.name as author_name', ...CONTENT_COLUMNS.map((column) => `r.${column}`)]);
  if (!row) throw new NotFoundError(revisionMessages.revisionNotFound);
  return {
    page_id: pageId,
    number: row.number,
    recorded_at: row.recorded_at,
    author: authorOf(row),
    state: revisionState(page, row.number),
    content: contentOf(row),
  };
}
