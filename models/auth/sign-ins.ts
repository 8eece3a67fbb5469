// When accounts last signed in, for the users screens. Every session is opened by the
// statement that records `auth.login` (middleware/session.ts, logInSession), so the
// audit log knows each sign-in, also after the session has ended (a logout or an expiry
// deletes the session row, which would lose it). What it cannot know is a sign-in older
// than its retention (AUDIT_RETENTION_DAYS): the screens then say «Aucune».
import type { AppContext } from '../../lib/context.js';

/**
 * The time of each account's latest `auth.login`, one statement for a page of accounts:
 * per id, a backward scan of the target index (target_type, target_id, id) that stops at
 * the first login; the events about an account are mostly its logins and logouts.
 */
export async function lastSignIns(ctx: AppContext, userIds: number[]): Promise<Map<number, Date>> {
  if (userIds.length === 0) return new Map();
  const { rows } = await ctx.db.raw<{ rows: Array<{ id: number; at: Date }> }>(
    `SELECT ids.id, last.at
     FROM unnest(?::int[]) AS ids(id)
     CROSS JOIN LATERAL (
       SELECT e.at FROM app_audit_events e
       WHERE e.target_type = 'user' AND e.target_id = ids.id::text AND e.action = 'auth.login'
       ORDER BY e.id DESC LIMIT 1
     ) last`,
    [userIds],
  );
  return new Map(rows.map((row) => [row.id, row.at]));
}
