// GET /admin/pages/:id/review: a page's review (issue 26, item 5). Its state, who
// submitted which revision and when, the thread of comments, a link to the revisions'
// comparison (the live version beside the revision in review), and the forms: submit
// (whoever writes the page), approve and send back (pages.review). Plain forms with
// their CSRF field: nothing needs JavaScript.
import { frenchDates } from '../../lib/dates.js';
import { hasPermission } from '../../middleware/require-auth.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { getPage } from '../../models/pages/pages.js';
import { REVIEW_EVENT_LABELS, REVIEW_STATE_LABELS } from '../../models/pages/review-messages.js';
import { latestReview } from '../../models/pages/reviews.js';
import { lifecycleMessages } from '../../models/auth/messages.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { approvePageReview, rejectPageReview, submitPageForReview } from '../../services/pages-review.js';
import { pathId, redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { mayManagePage } from './page-rights.js';
import { zonedToInstant } from './admin-screens-zone.js';
import { reviewScreenMessages } from './review-screen-messages.js';
import type { ApproveBody, RejectBody } from './review-schemas.js';

type Id = { id: number };
type None = Record<string, never>;

// GET /admin/pages/:id/review (also the page shown again when a form is refused)
export async function showReviewScreen(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const id = pathId(call);
  const [page, review, canManage] = await Promise.all([getPage(call.ctx, id), latestReview(call.ctx, id), mayManagePage(call, id)]);
  const canReview = hasPermission(call.req, 'pages.review');
  const open = review?.state === 'in_review';
  const dates = frenchDates(call.ctx.config.timeZone);
  await renderAdmin(
    call,
    'admin/pages/review.njk',
    {
      pageTitle: reviewScreenMessages.title(page.title),
      page,
      review,
      stateLabel: review ? REVIEW_STATE_LABELS[review.state] : undefined,
      comments: (review?.comments ?? []).map((comment) => ({
        ...comment,
        label: REVIEW_EVENT_LABELS[comment.kind],
        who: comment.author ? comment.author.name : lifecycleMessages.deletedAccount,
        at: dates.dateTime(comment.created_at),
      })),
      // The live version beside the revision in review, on the revisions' comparison screen.
      compareHref:
        review && page.published_revision !== null && page.published_revision !== review.revision
          ? `/admin/pages/${id}/revisions/compare?a=${page.published_revision}&b=${review.revision}`
          : undefined,
      publishAt: review?.publish_at ? dates.dateTime(review.publish_at) : undefined,
      canReview: canReview && open,
      canSubmit: canManage && !open && page.draft_revision !== null,
      timeZone: call.ctx.config.timeZone,
      ...locals,
    },
    status,
  );
}

// POST /admin/pages/:id/review {comment, review_at}: «Soumettre à la relecture»
export async function submitFromScreen(call: Call<Id, None, { comment?: string; review_at?: string }>): Promise<void> {
  const { ctx, params, body } = call;
  await submitPageForReview(ctx, call.origin, params.id, { comment: body.comment, at: wishedTime(body.review_at, ctx.config.timeZone) });
  redirectWithFlash(call.req, call.res, `/admin/pages/${params.id}/review`, reviewScreenMessages.submitted);
}

/** The wished publication time on the site's wall clock; unreadable text is refused as `at`. */
export function wishedTime(value: string | undefined, timeZone: string): Date | null {
  if (!value) return null;
  return zonedToInstant(value, timeZone) ?? new Date(Number.NaN);
}

// POST /admin/pages/:id/review/approve {revision, comment}
export async function approveFromScreen(catalog: PageCatalog, call: Call<Id, None, ApproveBody>): Promise<void> {
  const outcome = await approvePageReview(call.ctx, call.origin, call.params.id, call.body, catalog);
  const message = outcome.scheduled_at
    ? reviewScreenMessages.approvedScheduled(frenchDates(call.ctx.config.timeZone).dateTime(outcome.scheduled_at))
    : reviewScreenMessages.approved;
  redirectWithFlash(call.req, call.res, `/admin/pages/${call.params.id}/review`, message);
}

// POST /admin/pages/:id/review/reject {comment}
export async function rejectFromScreen(call: Call<Id, None, RejectBody>): Promise<void> {
  await rejectPageReview(call.ctx, call.origin, call.params.id, call.body);
  redirectWithFlash(call.req, call.res, `/admin/pages/${call.params.id}/review`, reviewScreenMessages.rejected);
}
