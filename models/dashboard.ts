// What the dashboard of /admin reads of the core: counts of the site's accounts (the
// core's panel; each module declares its own counts), and the latest changes from the
// audit log. One statement each, whatever the size of the site.
import type { AppContext } from '../lib/context.js';
import { CREDENTIAL_PROVIDER } from './auth/credentials.js';

export interface AccountCounts {
  accounts: number;
  /** Accounts invited and not set up yet: no password chosen. */
  invitations: number;
}

/** Both counts in one statement. */
export async function accountCounts(ctx: AppContext): Promise<AccountCounts> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ accounts: string; invitations: string }> }>(
    `SELECT
       (SELECT count(*) FROM app_auth_users) AS accounts,
       (SELECT count(*) FROM app_auth_users u
         WHERE NOT EXISTS (SELECT 1 FROM app_auth_accounts a WHERE a.user_id = u.id AND a.provider = ?)) AS invitations`,
    [CREDENTIAL_PROVIDER],
  );
  return { accounts: Number(rows[0].accounts), invitations: Number(rows[0].invitations) };
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
