// Suspension, restoration and deletion of accounts, and a person's own deletion and
// data export: called by both /app/api/users and the /admin/users and /account screens.
// The rules and the audit events live in models/auth/lifecycle.ts; here the files and
// the current-password check around them.
import { listAuditEvents, type AuditItem } from '../models/audit.js';
import type { AppContext } from '../lib/context.js';
import type { Origin } from '../lib/origin.js';
import { frenchDates } from '../lib/dates.js';
import { removeStoredFile } from '../lib/uploads.js';
import { deleteOwnAccount, deleteUser, restoreUser, suspendUser, type DeletedAccount } from '../models/auth/lifecycle.js';
import { existingUser } from '../models/auth/profile.js';
import { rolesOfUser, type Role } from '../models/auth/roles.js';
import type { User } from '../models/auth/users.js';
import { verifyCurrentPassword } from './current-password.js';
import { listSessionsForDisplay, type DisplayedSession } from './sessions.js';
import type { Acting } from './users.js';

/** Suspends another account: its sessions close at once, its logins are refused. Mail: none. */
export function suspendAccount(ctx: AppContext, caller: Acting, userId: number, reason?: string): Promise<User> {
  return suspendUser(ctx, caller, userId, reason);
}

/** Lifts a suspension. Mail: none. */
export function restoreAccount(ctx: AppContext, caller: Acting, userId: number): Promise<User> {
  return restoreUser(ctx, caller, userId);
}

/** The picture file goes once the row is gone (a failed removal is only logged: the account is deleted). */
async function removePicture(ctx: AppContext, deleted: DeletedAccount): Promise<void> {
  await removeStoredFile(ctx, deleted.image).catch((error: unknown) =>
    ctx.logger.warn({ err: (error as Error).message, userId: deleted.user.id }, 'could not remove the picture of a deleted account'),
  );
}

/** Deletes another account, then its picture file. Mail: none. */
export async function deleteAccount(ctx: AppContext, caller: Acting, userId: number): Promise<User> {
  const deleted = await deleteUser(ctx, caller, userId);
  await removePicture(ctx, deleted);
  return deleted.user;
}

/**
 * A person deletes their own account: the current password first (login-grade limit,
 * services/current-password.ts), then the account, then its picture file. The caller
 * logs the request's session out (its row is already gone). Mail: none.
 */
export async function deleteOwnAccountWithPassword(ctx: AppContext, caller: Acting, currentPassword: string, origin: Origin): Promise<User> {
  await verifyCurrentPassword(ctx, origin, caller.id, currentPassword);
  const deleted = await deleteOwnAccount(ctx, caller);
  await removePicture(ctx, deleted);
  return deleted.user;
}

export interface AccountExport {
  exported_at: string;
  profile: User;
  roles: Array<Role & { primary: boolean }>;
  sessions: DisplayedSession[];
  /** What the audit log holds about the person: as actor, or as the target. Newest first. */
  audit_events: AuditItem[];
}

const AUDIT_EXPORT_PAGE = 500;

async function allAuditEvents(ctx: AppContext, filters: Parameters<typeof listAuditEvents>[1]): Promise<AuditItem[]> {
  const items: AuditItem[] = [];
  let cursor: string | undefined;
  do {
    const page = await listAuditEvents(ctx, filters, { limit: AUDIT_EXPORT_PAGE, cursor });
    items.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

/** GET /app/api/users/profile/export: the person's own data. */
export async function exportOwnData(ctx: AppContext, caller: Acting & { sid: string }): Promise<AccountExport> {
  const profile = await existingUser(ctx, caller.id);
  const [roles, sessions, asActor, asTarget] = await Promise.all([
    rolesOfUser(ctx, caller.id),
    listSessionsForDisplay(ctx, caller.id, caller.sid, frenchDates(ctx.config.timeZone)),
    allAuditEvents(ctx, { actor_id: caller.id }),
    allAuditEvents(ctx, { target_type: 'user', target_id: String(caller.id) }),
  ]);
  const seen = new Set<number>();
  const audit = [...asActor, ...asTarget].filter((event) => !seen.has(event.id) && seen.add(event.id)).sort((a, b) => b.id - a.id);
  return { exported_at: ctx.clock.now().toISOString(), profile, roles, sessions, audit_events: audit };
}
