// Review before publishing (issue 26, item 5): the use cases the JSON rows and the
// screens share. Each step commits (models/pages/reviews.ts), then its emails leave in
// the background, best effort: a mail server that fails does not undo a review.
// A submission goes to every reviewer; a refusal and an approval to the submitter.
// Whoever turned review emails off on /account gets none.
import type { AppContext } from '../lib/context.js';
import type { Origin } from '../lib/origin.js';
import type { Actor } from '../models/audit.js';
import type { PageCatalog } from '../models/pages/catalog.js';
import {
  approveReview,
  rejectReview,
  reviewersToNotify,
  submitForReview,
  submitterToNotify,
  type ApproveOutcome,
  type Recipient,
  type StepOutcome,
  type SubmitInput,
} from '../models/pages/reviews.js';
import { noticeInBackground } from './mail-policy.js';

const HEADINGS = {
  submitted: 'Une page attend une relecture',
  resubmitted: 'Une page attend une relecture',
  rejected: 'Page renvoyée après relecture',
  approved: 'Page approuvée',
} as const;

type EmailKind = keyof typeof HEADINGS;

function actorOf(origin: Origin): Actor | null {
  return origin.userId === null ? null : { id: origin.userId, name: origin.name ?? '', ip: origin.ip };
}

function siteLink(ctx: AppContext, pathname: string): string {
  return new URL(pathname, ctx.config.baseUrl.replace(/\/*$/, '/')).toString();
}

function sendReviewEmails(
  ctx: AppContext,
  origin: Origin,
  kind: EmailKind,
  recipients: Recipient[],
  outcome: StepOutcome,
  extra: { comment?: string | null; scheduledAt?: Date | null } = {},
): void {
  const { review } = outcome;
  for (const recipient of recipients) {
    noticeInBackground(
      ctx,
      `review email (${kind})`,
      () =>
        ctx.mailer.send('page-review', recipient.email, {
          subject: `${HEADINGS[kind]}\u00a0: ${outcome.title} — ${ctx.config.appName}`,
          heading: HEADINGS[kind],
          kind,
          email: recipient.email,
          title: outcome.title,
          revision: review.revision,
          actorName: origin.name ?? 'Quelqu’un',
          comment: extra.comment ?? null,
          publishAt: review.publish_at,
          scheduledAt: extra.scheduledAt ?? null,
          link: siteLink(ctx, `admin/pages/${review.page_id}/review`),
          accountLink: siteLink(ctx, 'account'),
        }),
      { page: review.page_id, to: recipient.id },
    );
  }
}

/** «Soumettre à la relecture»: the draft goes in review, every reviewer hears of it. */
export async function submitPageForReview(ctx: AppContext, origin: Origin, pageId: number, input: SubmitInput): Promise<StepOutcome> {
  const outcome = await submitForReview(ctx, pageId, input, actorOf(origin));
  const reviewers = await reviewersToNotify(ctx, pageId, origin.userId);
  sendReviewEmails(ctx, origin, outcome.resubmitted ? 'resubmitted' : 'submitted', reviewers, outcome, { comment: input.comment?.trim() || null });
  return outcome;
}

/** Approves the revision the reviewer read: live now, or scheduled when the submitter asked for a time. */
export async function approvePageReview(
  ctx: AppContext,
  origin: Origin,
  pageId: number,
  input: { revision: number; comment?: string },
  catalog: PageCatalog,
): Promise<ApproveOutcome> {
  const outcome = await approveReview(ctx, pageId, input, actorOf(origin), catalog);
  const submitter = await submitterToNotify(ctx, outcome.review, origin.userId);
  sendReviewEmails(ctx, origin, 'approved', submitter ? [submitter] : [], outcome, {
    comment: input.comment?.trim() || null,
    scheduledAt: outcome.scheduled_at,
  });
  return outcome;
}

/** Sends the page back to its submitter with the reviewer's comment. */
export async function rejectPageReview(ctx: AppContext, origin: Origin, pageId: number, input: { comment: string; revision?: number }): Promise<StepOutcome> {
  const outcome = await rejectReview(ctx, pageId, input, actorOf(origin));
  const submitter = await submitterToNotify(ctx, outcome.review, origin.userId);
  sendReviewEmails(ctx, origin, 'rejected', submitter ? [submitter] : [], outcome, { comment: input.comment.trim() });
  return outcome;
}
