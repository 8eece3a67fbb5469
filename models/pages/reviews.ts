// Review before publishing (issue 26, item 5): the statements of a review's rounds. A
// review holds the page's draft revision while it is `in_review` (a trigger keeps it on
// the draft: migrations/pages/20261129000200_pages_reviews.ts); approving publishes the
// draft (or schedules it at the time the submitter asked), rejecting leaves the draft
// as it is. Each step writes one event row and one audit event in its transaction.
import { inTransaction, type AppContext } from '../../lib/context.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { PageReviewEventKind, PageReviewRow, PageReviewState } from '../../lib/tables.js';
import { recordAudit, sourceOfActor, type Actor } from '../audit.js';
import type { PageCatalog } from './catalog.js';
import { publishDraft, schedulePublication } from './drafts.js';
import { pageMessages, revisionMessages } from './messages.js';
import { lockTreeMoves, pageTarget, type Page } from './pages.js';
import { reviewMessages } from './review-messages.js';
import { lockPageRevision } from './revision-store.js';
import { fieldError } from './rules.js';
import { PAGES_TABLE } from './schema.js';

const REVIEWS_TABLE = 'app_page_reviews';
const REVIEW_EVENTS_TABLE = 'app_page_review_events';

interface Person {
  id: number;
  name: string;
}

export interface ReviewComment {
  id: number;
  kind: PageReviewEventKind;
  revision: number;
  comment: string | null;
  /** null once the account is gone. */
  author: Person | null;
  created_at: Date;
}

export interface Review {
  id: number;
  page_id: number;
  state: PageReviewState;
  revision: number;
  publish_at: Date | null;
  submitted_by: Person | null;
  submitted_at: Date;
  decided_by: Person | null;
  decided_at: Date | null;
  /** Every step of the review, oldest first, with its comment. */
  comments: ReviewComment[];
}

const person = (id: number | null, name: string | null): Person | null => (id === null ? null : { id, name: name ?? '' });

/**
 * The page's latest review with its steps (two statements); a page never submitted
 * answers 404, as does an unknown page.
 */
export async function getReview(ctx: AppContext, pageId: number): Promise<Review> {
  const review = await latestReview(ctx, pageId);
  if (!review) throw new NotFoundError(reviewMessages.notFound, { code: 'review_not_found' });
  return review;
}

/** As getReview; undefined for a page never submitted (an unknown page is still 404). */
export async function latestReview(ctx: AppContext, pageId: number): Promise<Review | undefined> {
  const row: (PageReviewRow & { submitter: string | null; decider: string | null; page_exists: number | null }) | undefined = await ctx
    .db(`${PAGES_TABLE} as p`)
    .leftJoin(`${REVIEWS_TABLE} as r`, function () {
      this.on('r.page_id', '=', 'p.id').andOn('r.id', '=', ctx.db.raw(`(SELECT max(id) FROM ${REVIEWS_TABLE} WHERE page_id = p.id)`));
    })
    .leftJoin('app_auth_users as s', 's.id', 'r.submitted_by')
    .leftJoin('app_auth_users as d', 'd.id', 'r.decided_by')
    .where('p.id', pageId)
    .first(['p.id as page_exists', 'r.*', 's.name as submitter', 'd.name as decider']);
  if (!row) throw new NotFoundError(pageMessages.pageNotFound);
  if (row.id === null) return undefined;
  const events = await ctx
    .db(`${REVIEW_EVENTS_TABLE} as e`)
    .leftJoin('app_auth_users as u', 'u.id', 'e.author_id')
    .where('e.review_id', row.id)
    .orderBy('e.id')
    .select<
      Array<{
        id: number;
        kind: PageReviewEventKind;
        revision: number;
        comment: string | null;
        author_id: number | null;
        name: string | null;
        created_at: Date;
      }>
    >(['e.id', 'e.kind', 'e.revision', 'e.comment', 'e.author_id', 'u.name', 'e.created_at']);
  return {
    id: row.id,
    page_id: pageId,
    state: row.state,
    revision: row.revision,
    publish_at: row.publish_at,
    submitted_by: person(row.submitted_by, row.submitter),
    submitted_at: row.submitted_at,
    decided_by: person(row.decided_by, row.decider),
    decided_at: row.decided_at,
    comments: events.map((event) => ({
      id: event.id,
      kind: event.kind,
      revision: event.revision,
      comment: event.comment,
      author: person(event.author_id, event.name),
      created_at: event.created_at,
    })),
  };
}

/** The page's latest review, locked for the transaction (undefined: never submitted). */
async function lockLatestReview(tx: AppContext, pageId: number): Promise<PageReviewRow | undefined> {
  return tx.db(REVIEWS_TABLE).where({ page_id: pageId }).orderBy('id', 'desc').forUpdate().first();
}

async function recordStep(
  tx: AppContext,
  reviewId: number,
  pageId: number,
  kind: PageReviewEventKind,
  revision: number,
  comment: string | null,
  actor: Actor | null,
) {
  await tx
    .db(REVIEW_EVENTS_TABLE)
    .insert({ review_id: reviewId, page_id: pageId, kind, revision, comment, author_id: actor?.id ?? null, created_at: tx.clock.now() });
}

export interface SubmitInput {
  comment?: string;
  /** When the page should go live once approved (null: at approval). */
  at?: Date | null;
}

export interface StepOutcome {
  review: Review;
  /** The page's title (for the emails). */
  title: string;
}

/**
 * Submits the page's pending draft for review: a new review, or the rejected one
 * reopened (its thread continues). 409 `already_in_review` while one is open.
 */
export async function submitForReview(
  ctx: AppContext,
  pageId: number,
  input: SubmitInput,
  actor: Actor | null,
): Promise<StepOutcome & { resubmitted: boolean }> {
  const at = input.at ?? null;
  if (at && !(at.getTime() > ctx.clock.nowMs())) throw fieldError('at', reviewMessages.atInPast);
  const comment = input.comment?.trim() || null;
  const outcome = await inTransaction(ctx, async (tx) => {
    const page = await lockPageRevision(tx, pageId, undefined, ['title']);
    if (page.draft_revision === null) throw new ConflictError(reviewMessages.noDraft, { code: 'no_draft' });
    const latest = await lockLatestReview(tx, pageId);
    if (latest?.state === 'in_review') throw new ConflictError(reviewMessages.alreadyInReview, { code: 'already_in_review' });
    const fields = {
      state: 'in_review' as const,
      revision: page.draft_revision,
      publish_at: at,
      submitted_by: actor?.id ?? null,
      submitted_at: tx.clock.now(),
      decided_by: null,
      decided_at: null,
    };
    const resubmitted = latest?.state === 'rejected';
    let reviewId: number;
    if (resubmitted) {
      await tx.db(REVIEWS_TABLE).where({ id: latest.id }).update(fields);
      reviewId = latest.id;
    } else {
      const [row] = await tx
        .db(REVIEWS_TABLE)
        .insert({ page_id: pageId, ...fields })
        .returning<Array<{ id: number }>>('id');
      reviewId = row.id;
    }
    const kind = resubmitted ? 'resubmitted' : 'submitted';
    await recordStep(tx, reviewId, pageId, kind, page.draft_revision, comment, actor);
    await recordAudit(tx, {
      ...sourceOfActor(actor),
      action: `page.review_${kind}`,
      target: pageTarget({ id: pageId, title: page.title }),
      details: { revision: page.draft_revision, ...(comment ? { comment } : {}), ...(at ? { publish_at: at.toISOString() } : {}) },
    });
    return { title: page.title, resubmitted };
  });
  return { ...outcome, review: await getReview(ctx, pageId) };
}

/** The open review of a page whose row the caller locked, checked against the revision the reviewer read. */
async function openReview(tx: AppContext, pageId: number, revision: number | undefined): Promise<PageReviewRow> {
  const review = await lockLatestReview(tx, pageId);
  if (!review || review.state !== 'in_review') throw new ConflictError(reviewMessages.notInReview, { code: 'not_in_review' });
  if (revision !== undefined && revision !== review.revision) {
    const error = new ConflictError(reviewMessages.staleRevision(review.revision), { code: 'review_revision_changed' });
    error.body = { revision: review.revision };
    throw error;
  }
  return review;
}

async function decide(tx: AppContext, review: PageReviewRow, state: 'approved' | 'rejected', comment: string | null, actor: Actor | null, title: string) {
  await tx
    .db(REVIEWS_TABLE)
    .where({ id: review.id })
    .update({ state, decided_by: actor?.id ?? null, decided_at: tx.clock.now() });
  await recordStep(tx, review.id, review.page_id, state, review.revision, comment, actor);
  await recordAudit(tx, {
    ...sourceOfActor(actor),
    action: `page.review_${state}`,
    target: pageTarget({ id: review.page_id, title }),
    details: { revision: review.revision, ...(comment ? { comment } : {}) },
  });
}

export interface ApproveOutcome extends StepOutcome {
  /** The page once approved: live, or with its publication scheduled. */
  page: Page | null;
  scheduled_at: Date | null;
}

/**
 * Approves the revision in review: publishes it now, or schedules it at the time the
 * submitter asked when that time is still ahead. 409 `review_revision_changed` when
 * `revision` is not the one in review (the draft changed since the reviewer read it).
 */
export async function approveReview(
  ctx: AppContext,
  pageId: number,
  input: { revision: number; comment?: string },
  actor: Actor | null,
  catalog: PageCatalog,
): Promise<ApproveOutcome> {
  const comment = input.comment?.trim() || null;
  const outcome = await inTransaction(ctx, async (tx) => {
    // Publishing may move the page: the moves' lock before the row's, as publishDraft takes them.
    await lockTreeMoves(tx);
    const page = await lockPageRevision(tx, pageId, undefined, ['title']);
    const review = await openReview(tx, pageId, input.revision);
    if (page.draft_revision !== review.revision) throw new NotFoundError(revisionMessages.draftNotFound);
    await decide(tx, review, 'approved', comment, actor, page.title);
    if (review.publish_at && review.publish_at.getTime() > tx.clock.nowMs()) {
      const { scheduled_at } = await schedulePublication(tx, pageId, review.publish_at, actor);
      return { title: page.title, page: null, scheduled_at };
    }
    const live = await publishDraft(tx, pageId, actor, undefined, catalog);
    return { title: live.title, page: live, scheduled_at: null };
  });
  return { ...outcome, review: await getReview(ctx, pageId) };
}

/** Sends the submission back to its author with `comment`; the draft stays as it is. */
export async function rejectReview(ctx: AppContext, pageId: number, input: { comment: string; revision?: number }, actor: Actor | null): Promise<StepOutcome> {
  const comment = input.comment.trim();
  if (!comment) throw fieldError('comment', reviewMessages.commentRequired);
  const title = await inTransaction(ctx, async (tx) => {
    const page = await lockPageRevision(tx, pageId, undefined, ['title']);
    const review = await openReview(tx, pageId, input.revision);
    await decide(tx, review, 'rejected', comment, actor, page.title);
    return page.title;
  });
  return { title, review: await getReview(ctx, pageId) };
}

export interface Recipient {
  id: number;
  email: string;
  name: string;
}

/**
 * Who is told of a submission: every account that may review pages (pages.review
 * through any of its roles), not suspended, with review emails on, but the submitter.
 */
export async function reviewersToNotify(ctx: AppContext, pageId: number, exceptUserId: number | null): Promise<Recipient[]> {
  // Reviewers of this page: roles holding pages.review site-wide, and roles granted it on
  // the page or one of its ancestors (models/pages/grants.ts), the walk up as bounded there.
  const { rows } = await ctx.db.raw<{ rows: Recipient[] }>(
    `WITH RECURSIVE up AS (
       SELECT id, parent_id, 1 AS depth FROM ${PAGES_TABLE} WHERE id = :page
       UNION ALL
       SELECT a.id, a.parent_id, up.depth + 1 FROM up JOIN ${PAGES_TABLE} a ON a.id = up.parent_id WHERE up.depth < 1000
     ),
     reviewing AS (
       SELECT rp.role_id FROM app_auth_role_permissions rp WHERE rp.permission_key = 'pages.review'
       UNION
       SELECT g.role_id FROM app_page_grants g JOIN up ON up.id = g.page_id WHERE 'pages.review' = ANY (g.permissions)
     )
     SELECT u.id, u.email, u.name FROM app_auth_users u
     WHERE u.suspended_at IS NULL AND u.review_emails AND u.id IS DISTINCT FROM :except
       AND (u.role_id IN (SELECT role_id FROM reviewing)
            OR EXISTS (SELECT 1 FROM app_auth_user_roles ur WHERE ur.user_id = u.id AND ur.role_id IN (SELECT role_id FROM reviewing)))
     ORDER BY u.id`,
    { page: pageId, except: exceptUserId },
  );
  return rows;
}

/** The submitter of a review, when its account still wants review emails (and is not the one acting). */
export async function submitterToNotify(ctx: AppContext, review: Review, actorId: number | null): Promise<Recipient | undefined> {
  if (!review.submitted_by || review.submitted_by.id === actorId) return undefined;
  return ctx.db('app_auth_users').where({ id: review.submitted_by.id, review_emails: true }).whereNull('suspended_at').first(['id', 'email', 'name']);
}

export interface QueueItem {
  page_id: number;
  title: string;
  revision: number;
  submitted_at: Date;
  submitter: string | null;
}

/** The pages waiting for a reviewer, oldest submission first, and how many in all (one statement). */
export async function reviewQueue(ctx: AppContext, limit: number): Promise<{ items: QueueItem[]; total: number }> {
  const { rows } = await ctx.db.raw<{ rows: Array<QueueItem & { total: string }> }>(
    `SELECT r.page_id, p.title, r.revision, r.submitted_at, u.name AS submitter, count(*) OVER () AS total
     FROM ${REVIEWS_TABLE} r JOIN ${PAGES_TABLE} p ON p.id = r.page_id LEFT JOIN app_auth_users u ON u.id = r.submitted_by
     WHERE r.state = 'in_review'
     ORDER BY r.submitted_at, r.id
     LIMIT ?`,
    [limit],
  );
  return { items: rows.map(({ total: _total, ...item }) => item), total: rows.length ? Number(rows[0].total) : 0 };
}

/** The steps of every review of the page, newest first (the history screen), with the review's state now. */
export async function reviewHistory(ctx: AppContext, pageId: number, limit = 100): Promise<Array<ReviewComment & { state: PageReviewState }>> {
  const rows = await ctx
    .db(`${REVIEW_EVENTS_TABLE} as e`)
    .join(`${REVIEWS_TABLE} as r`, 'r.id', 'e.review_id')
    .leftJoin('app_auth_users as u', 'u.id', 'e.author_id')
    .where('e.page_id', pageId)
    .orderBy('e.id', 'desc')
    .limit(limit)
    .select<
      Array<{
        id: number;
        kind: PageReviewEventKind;
        revision: number;
        comment: string | null;
        author_id: number | null;
        name: string | null;
        created_at: Date;
        state: PageReviewState;
      }>
    >(['e.id', 'e.kind', 'e.revision', 'e.comment', 'e.author_id', 'u.name', 'e.created_at', 'r.state']);
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    revision: row.revision,
    comment: row.comment,
    author: person(row.author_id, row.name),
    created_at: row.created_at,
    state: row.state,
  }));
}
