// Forms typed while the session expired (app_auth_form_drafts): kept under the hash of
// a random token the browser holds in an HttpOnly cookie, for the account whose session
// it was, given back once, to that account only, on the page the form was on, within
// DRAFT_LIFETIME_MS. Expired drafts are swept by the statement
// that keeps a new one.
import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../lib/context.js';

export const DRAFT_LIFETIME_MS = 15 * 60_000;

export interface FormDraft {
  /** The page that showed the form (path and query), where the person comes back. */
  page: string;
  /** Which form of the page (pages with several forms). */
  form?: string;
  fields: Record<string, unknown>;
}

export interface OwnedFormDraft extends FormDraft {
  /** The account whose session expired: the only one it is given back to. */
  userId: number;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** Keeps the draft; returns the token for the browser's cookie. */
export async function keepFormDraft(ctx: AppContext, draft: OwnedFormDraft): Promise<string> {
  const token = randomBytes(24).toString('base64url');
  const now = ctx.clock.now();
  await ctx.db.raw(
    `WITH swept AS (DELETE FROM app_auth_form_drafts WHERE expires_at <= ?)
     INSERT INTO app_auth_form_drafts (token_hash, user_id, page, form, fields, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
    [now, hashOf(token), draft.userId, draft.page, draft.form ?? null, JSON.stringify(draft.fields), new Date(now.getTime() + DRAFT_LIFETIME_MS)],
  );
  return token;
}

/** The draft of this token for this page and account, removed as it is read; undefined when none is left. */
export async function takeFormDraft(ctx: AppContext, token: string, page: string, userId: number): Promise<FormDraft | undefined> {
  const rows = await ctx
    .db('app_auth_form_drafts')
    .where({ token_hash: hashOf(token), page, user_id: userId })
    .andWhere('expires_at', '>', ctx.clock.now())
    .delete()
    .returning(['page', 'form', 'fields']);
  const row = rows[0];
  return row ? { page: row.page, form: row.form ?? undefined, fields: row.fields } : undefined;
}
