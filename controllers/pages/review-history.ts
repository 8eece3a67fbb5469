// The review's steps on a page's history screen (issue 26, item 5): who submitted, sent
// back or approved which revision, when, with the comment; and which revision is in
// review now (its row of the history is marked «En relecture»).
import type { AppContext } from '../../lib/context.js';
import { frenchDates } from '../../lib/dates.js';
import { lifecycleMessages } from '../../models/auth/messages.js';
import { REVIEW_EVENT_LABELS } from '../../models/pages/review-messages.js';
import { reviewHistory } from '../../models/pages/reviews.js';

export async function reviewStepsOf(ctx: AppContext, pageId: number) {
  const steps = await reviewHistory(ctx, pageId);
  const dates = frenchDates(ctx.config.timeZone);
  const open = steps.find((step) => step.state === 'in_review');
  return {
    reviewSteps: steps.map((step) => ({
      kind: step.kind,
      label: REVIEW_EVENT_LABELS[step.kind],
      revision: step.revision,
      comment: step.comment,
      who: step.author ? step.author.name : lifecycleMessages.deletedAccount,
      at: dates.dateTime(step.created_at),
    })),
    // While a review is open its revision is the pending draft (a trigger keeps it so).
    reviewOpen: open !== undefined,
  };
}
