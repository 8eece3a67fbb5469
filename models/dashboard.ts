// What the dashboard of /admin shows: counts of the site's accounts and pages, and the
// latest changes from the audit log. Two statements whatever the size of the site.
import type { AppContext } from '../lib/context.js';
import { CREDENTIAL_PROVIDER } from './auth/credentials.js';

export interface SiteCounts {
  accounts: number;
  /** Accounts invited and not set up yet: no password chosen. */
  invitations: number;
  pages: {
    total: number;
    /** Public and live: what visitors can read. */
    online: number;
    private: number;
    /** With a draft waiting (published or not). */
    drafts: number;
    scheduled: number;
  };
}

interface CountsRow {
  accounts: string;
  invitations: string;
  pages: string;
  online: string;
  private: string;
  drafts: string;
  scheduled: string;
}

/** Every count in one statement (the pages' in one pass over app_pages). */
export async function siteCounts(ctx: AppContext): Promise<SiteCounts> {
  const { rows } = await ctx.db.raw<{ rows: CountsRow[] }>(
    `SELECT
       (SELECT count(*) FROM app_auth_users) AS accounts,
       (SELECT count(*) FROM app_auth_users u
         WHERE NOT EXISTS (SELECT 1 FROM app_auth_accounts a WHERE a.user_id = u.id AND a.provider = ?)) AS invitations,
       p.*
     FROM (SELECT count(*) AS pages,
                  count(*) FILTER (WHERE visibility = 'public') AS online,
                  count(*) FILTER (WHERE visibility = 'private') AS private,
                  count(*) FILTER (WHERE draft_revision IS NOT NULL) AS drafts,
                  count(*) FILTER (WHERE scheduled_at IS NOT NULL) AS scheduled
           FROM app_pages) p`,
    [CREDENTIAL_PROVIDER],
  );
  const row = rows[0];
  return {
    accounts: Number(row.accounts),
    invitations: Number(row.invitations),
    pages: { total: Number(row.pages), online: Number(row.online), private: Number(row.private), drafts: Number(row.drafts), scheduled: Number(row.scheduled) },
  };
}

export interface RecentChange {
  id: number;
  at: Date;
  actorName: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  targetLabel: string | null;
}

// Sign-ins and sign-outs are not changes to the site.
const NOT_CHANGES = ['auth.login', 'auth.login_failed', 'auth.logout', 'auth.login_throttled', 'auth.second_factor_failed', 'auth.second_factor_throttled'];

/**
 * The latest changes to targets of the given types (those the viewer may see), newest
 * first: one backward scan of the events by id, stopping after `limit` matches.
 */
export async function recentChanges(ctx: AppContext, targetTypes: string[], limit: number): Promise<RecentChange[]> {
  if (targetTypes.length === 0) return [];
  const rows = await ctx
    .db('app_audit_events')
    .whereIn('target_type', targetTypes)
    .whereNotIn('action', NOT_CHANGES)
    .orderBy('id', 'desc')
    .limit(limit)
    .select('id', 'at', 'actor_name', 'action', 'target_type', 'target_id', 'target_label');
  return rows.map((row) => ({
    id: row.id,
    at: row.at,
    actorName: row.actor_name,
    action: row.action,
    targetType: row.target_type!,
    targetId: row.target_id,
    targetLabel: row.target_label,
  }));
}
