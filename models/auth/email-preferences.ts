// A person's choice about optional emails: those of the page review workflow (pages
// submitted for review, the answer to one's own submissions). Security notices
// (password changed, new passkey…) are never optional and have no switch here.
import type { AppContext } from '../../lib/context.js';

export async function reviewEmailsOn(ctx: AppContext, userId: number): Promise<boolean> {
  const row = await ctx.db('app_auth_users').where({ id: userId }).first('review_emails');
  return row?.review_emails ?? true;
}

export async function setReviewEmails(ctx: AppContext, userId: number, on: boolean): Promise<void> {
  await ctx.db('app_auth_users').where({ id: userId }).update({ review_emails: on, updated_at: ctx.db.fn.now() });
}
