// JSON rows of the review workflow (issue 26, item 5), under /app/api/admin/pages/:id/review.
// Input arrives validated by the route rows (routes/pages/reviews.ts).
import type { PageCatalog } from '../../models/pages/catalog.js';
import { getReview, type Review } from '../../models/pages/reviews.js';
import type { Call } from '../../routes/define.js';
import { approvePageReview, rejectPageReview, submitPageForReview } from '../../services/pages-review.js';
import type { ApproveBody, RejectBody, SubmitBody } from './review-schemas.js';

type Id = { id: number };
type None = Record<string, never>;

function reviewJson(review: Review) {
  return {
    page_id: review.page_id,
    state: review.state,
    revision: review.revision,
    publish_at: review.publish_at,
    submitted_by: review.submitted_by,
    submitted_at: review.submitted_at,
    decided_by: review.decided_by,
    decided_at: review.decided_at,
    comments: review.comments,
  };
}

// GET /app/api/admin/pages/:id/review
export async function showReview(call: Call<Id>): Promise<void> {
  call.res.json(reviewJson(await getReview(call.ctx, call.params.id)));
}

// POST /app/api/admin/pages/:id/review {comment?, at?} → 202 {state: "in_review", revision, …}
export async function submitReview(call: Call<Id, None, SubmitBody | undefined>): Promise<void> {
  const { comment, at } = call.body ?? {};
  const { review } = await submitPageForReview(call.ctx, call.origin, call.params.id, { comment, at });
  call.res.status(202).json(reviewJson(review));
}

// POST /app/api/admin/pages/:id/review/approve {revision, comment?} → 200 (live, or scheduled)
export async function approveReviewAnswer(catalog: PageCatalog, call: Call<Id, None, ApproveBody>): Promise<void> {
  const outcome = await approvePageReview(call.ctx, call.origin, call.params.id, call.body, catalog);
  call.res.json({ ...reviewJson(outcome.review), page: outcome.page, scheduled_at: outcome.scheduled_at });
}

// POST /app/api/admin/pages/:id/review/reject {comment, revision?} → 200 (back to draft)
export async function rejectReviewAnswer(call: Call<Id, None, RejectBody>): Promise<void> {
  const { review } = await rejectPageReview(call.ctx, call.origin, call.params.id, call.body);
  call.res.json(reviewJson(review));
}
