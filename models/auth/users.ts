// The users data layer (the spec's core/users): every SQL statement on app_auth_users
// and its role links. Secrets never leave the models: rows returned here carry no hash.
import type { AppContext } from '../../lib/context.js';
import { ConflictError } from '../../lib/errors.js';
import { authMessages } from './messages.js';

export interface User {
  id: number;
  email: string;
  name: string;
  role: string;
  roles: string[];
  email_verified: boolean;
  image: string | null;
  created_at: Date;
  updated_at: Date;
  /** Set while the account is suspended (no session, logins refused), with the reason given. */
  suspended_at: Date | null;
  suspended_reason: string | null;
  /** An account that never set its password: its invitation, and when its link expires (ISO 8601, UTC; null when no link is left). */
  invitation: { pending: true; expires_at: string | null } | null;
}

/** The logged-in user as middleware sees it: the user plus effective permissions. */
export interface SessionUser extends User {
  permissions: string[];
  /** Two-step verification is on for the account. */
  second_factor_enabled: boolean;
  /** One of its roles requires two-step verification (require_2fa). */
  second_factor_required: boolean;
  /**
   * Permissions held on part of a module's objects only (a section of the page tree),
   * as the modules declared them (ModuleRegistrar.scopedPermissions); read by the
   * session's user statement, absent elsewhere.
   */
  scoped_permissions?: string[];
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

// Effective roles: the primary role plus the assigned ones, primary first. An account
// without a password ('credential' account) nor a link to a single sign-on provider is
// an invitation not yet followed; its
// expiry is the latest setup link's, written like JSON writes a Date.
export const USER_COLUMNS = `
  u.id, u.email, u.name, r.name AS role, u.email_verified, u.image, u.created_at, u.updated_at,
  u.suspended_at, u.suspended_reason,
  CASE WHEN NOT EXISTS (SELECT 1 FROM app_auth_accounts ca WHERE ca.user_id = u.id) THEN
    json_build_object('pending', true, 'expires_at', (
      SELECT to_char(max(iv.expires_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      FROM app_auth_verifications iv WHERE iv.user_id = u.id AND iv.kind = 'account_setup'))
  END AS invitation,
  ARRAY(
    SELECT name FROM (
      SELECT r.name, 0 AS rank
      UNION
      SELECT r2.name, 1 FROM app_auth_user_roles ur JOIN app_auth_roles r2 ON r2.id = ur.role_id
      WHERE ur.user_id = u.id
    ) effective ORDER BY rank, name
  ) AS roles`;

export const USER_FROM = 'app_auth_users u JOIN app_auth_roles r ON r.id = u.role_id';

// The admin role holds every permission by definition, even one added after its seed.
export const PERMISSIONS_COLUMN = `
  ARRAY(
    SELECT p.key FROM app_auth_permissions p
    WHERE EXISTS (
      SELECT 1 FROM app_auth_roles er
      LEFT JOIN app_auth_role_permissions rp ON rp.role_id = er.id AND rp.permission_key = p.key
      WHERE (er.id = u.role_id OR er.id IN (SELECT role_id FROM app_auth_user_roles WHERE user_id = u.id))
        AND (er.name = 'admin' OR rp.permission_key IS NOT NULL)
    )
    ORDER BY p.key
  ) AS permissions`;

export async function findUserById(ctx: AppContext, id: number): Promise<User | undefined> {
  const { rows } = await ctx.db.raw<{ rows: User[] }>(`SELECT ${USER_COLUMNS} FROM ${USER_FROM} WHERE u.id = ?`, [id]);
  return rows[0];
}

export async function findUserByEmail(ctx: AppContext, email: string): Promise<User | undefined> {
  const { rows } = await ctx.db.raw<{ rows: User[] }>(`SELECT ${USER_COLUMNS} FROM ${USER_FROM} WHERE u.email = ?`, [normalizeEmail(email)]);
  return rows[0];
}

// Two-step verification state, in the same statement as the user: whether it is on,
// and whether a role of the user requires it (then nothing but enrolment is reachable).
export const SECOND_FACTOR_COLUMNS = `
  EXISTS (SELECT 1 FROM app_auth_two_factor tf WHERE tf.user_id = u.id AND tf.enabled_at IS NOT NULL) AS second_factor_enabled,
  EXISTS (
    SELECT 1 FROM app_auth_roles rr
    WHERE rr.require_2fa AND (rr.id = u.role_id OR rr.id IN (SELECT role_id FROM app_auth_user_roles WHERE user_id = u.id))
  ) AS second_factor_required`;

/** The modules' scoped permissions as one sorted text[] column (none: an empty array, no subquery). */
function scopedPermissionsColumn(ctx: AppContext): string {
  const parts = ctx.site.scopedPermissions;
  if (!parts.length) return 'ARRAY[]::text[] AS scoped_permissions';
  return `ARRAY(SELECT DISTINCT s.key FROM unnest(${parts.map((part) => `(${part})`).join(' || ')}) AS s(key) ORDER BY s.key) AS scoped_permissions`;
}

/** One statement: the user, its roles and its permissions, read fresh on each request. */
export async function findSessionUser(ctx: AppContext, id: number): Promise<SessionUser | undefined> {
  const { rows } = await ctx.db.raw<{ rows: SessionUser[] }>(
    `SELECT ${USER_COLUMNS}, ${PERMISSIONS_COLUMN}, ${SECOND_FACTOR_COLUMNS}, ${scopedPermissionsColumn(ctx)} FROM ${USER_FROM} WHERE u.id = ?`,
    [id],
  );
  return rows[0];
}

export async function countUsers(ctx: AppContext): Promise<number> {
  const row = await ctx.db('app_auth_users').count<{ count: number }[]>({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

async function roleIdByName(ctx: AppContext, name: string): Promise<number | undefined> {
  const row = await ctx.db('app_auth_roles').where({ name }).first('id');
  return row?.id;
}

export interface NewUser {
  email: string;
  name: string;
  role?: string;
  emailVerified: boolean;
}

/** Inserts the user row; a taken address is a ConflictError. */
export async function insertUser(ctx: AppContext, user: NewUser): Promise<User> {
  const roleId = await roleIdByName(ctx, user.role ?? 'user');
  if (!roleId) throw new ConflictError(authMessages.unknownRole);
  const inserted = await ctx
    .db('app_auth_users')
    .insert({ email: normalizeEmail(user.email), name: user.name.trim(), role_id: roleId, email_verified: user.emailVerified })
    .onConflict('email')
    .ignore()
    .returning('id');
  if (inserted.length === 0) throw new ConflictError(authMessages.emailTaken, { code: 'email_taken' });
  return (await findUserById(ctx, inserted[0].id))!;
}

export async function markEmailVerified(ctx: AppContext, userId: number): Promise<void> {
  await ctx.db('app_auth_users').where({ id: userId }).update({ email_verified: true, updated_at: ctx.clock.now() });
}
