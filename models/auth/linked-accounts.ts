// Accounts linked to a single sign-on provider: rows of app_auth_accounts whose provider
// is `sso:<provider id>` and whose account_id is the provider's `sub` (SPEC: «accounts
// linked to a provider»). One link per provider and account, one account per `sub`
// (the table's two unique constraints).
import type { AppContext } from '../../lib/context.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { CREDENTIAL_PROVIDER } from './credentials.js';
import { ssoMessages } from './messages.js';
import { ssoAccountProvider } from './sso-providers.js';
import { SIGN_IN_POLICY_COLUMN, type SignInPolicy } from './sign-in-policy.js';
import { PERMISSIONS_COLUMN, SECOND_FACTOR_COLUMNS, USER_COLUMNS, USER_FROM, insertUser, type SessionUser } from './users.js';

/** An account as a sign-in reads it: with its roles' sign-in policy (models/auth/sign-in-policy.ts). */
export type SignInUser = SessionUser & { sign_in_policy: SignInPolicy };

export interface LinkedAccount {
  provider_id: number;
  label: string;
  enabled: boolean;
  linked_at: Date;
}

/** The account linked to this `sub` of the provider, read as a login reads it. */
export async function findLinkedUser(ctx: AppContext, providerId: number, subject: string): Promise<SignInUser | undefined> {
  const { rows } = await ctx.db.raw<{ rows: SignInUser[] }>(
    `SELECT ${USER_COLUMNS}, ${PERMISSIONS_COLUMN}, ${SECOND_FACTOR_COLUMNS}, ${SIGN_IN_POLICY_COLUMN}
     FROM ${USER_FROM} JOIN app_auth_accounts la ON la.user_id = u.id
     WHERE la.provider = ? AND la.account_id = ?`,
    [ssoAccountProvider(providerId), subject],
  );
  return rows[0];
}

/** Links the account to the provider's `sub`; a `sub` or a provider already linked otherwise is a conflict. */
export async function linkAccount(ctx: AppContext, userId: number, providerId: number, subject: string): Promise<void> {
  const inserted = await ctx
    .db('app_auth_accounts')
    .insert({ user_id: userId, provider: ssoAccountProvider(providerId), account_id: subject })
    .onConflict()
    .ignore()
    .returning('id');
  if (inserted.length === 0) throw new ConflictError(ssoMessages.alreadyLinked, { code: 'already_linked' });
}

/** An account made at a first sign-in: its address is verified (the provider says so) and it has no password. */
export async function createLinkedUser(
  ctx: AppContext,
  user: { email: string; name: string; role: string | null },
  providerId: number,
  subject: string,
): Promise<SignInUser> {
  const created = await insertUser(ctx, { email: user.email, name: user.name, role: user.role ?? undefined, emailVerified: true });
  await linkAccount(ctx, created.id, providerId, subject);
  return (await findLinkedUser(ctx, providerId, subject))!;
}

/** An account as a sign-in reads it, by id (a sign-in whose first read did not carry the policy). */
export async function findSignInUser(ctx: AppContext, userId: number): Promise<SignInUser | undefined> {
  const { rows } = await ctx.db.raw<{ rows: SignInUser[] }>(
    `SELECT ${USER_COLUMNS}, ${PERMISSIONS_COLUMN}, ${SECOND_FACTOR_COLUMNS}, ${SIGN_IN_POLICY_COLUMN} FROM ${USER_FROM} WHERE u.id = ?`,
    [userId],
  );
  return rows[0];
}

export async function listLinkedAccounts(ctx: AppContext, userId: number): Promise<LinkedAccount[]> {
  const { rows } = await ctx.db.raw<{ rows: LinkedAccount[] }>(
    `SELECT p.id AS provider_id, p.label, p.enabled, a.created_at AS linked_at
     FROM app_auth_accounts a JOIN app_auth_sso_providers p ON a.provider = 'sso:' || p.id
     WHERE a.user_id = ? ORDER BY lower(p.label)`,
    [userId],
  );
  return rows;
}

/**
 * Removes the link unless it is the account's last way to sign in: a password, or a
 * link to another enabled provider, must remain. The account's rows are locked, so two
 * removals at once cannot each leave the other as the last.
 */
export async function unlinkAccount(tx: AppContext, userId: number, providerId: number): Promise<void> {
  const rows = await tx.db('app_auth_accounts').where({ user_id: userId }).forUpdate().select('provider', 'password_hash');
  const provider = ssoAccountProvider(providerId);
  if (!rows.some((row) => row.provider === provider)) throw new NotFoundError(ssoMessages.linkNotFound);
  const enabled = new Set(
    (await tx.db('app_auth_sso_providers').where({ enabled: true }).select('id')).map((row: { id: number }) => ssoAccountProvider(row.id)),
  );
  const others = rows.filter((row) => row.provider !== provider && ((row.provider === CREDENTIAL_PROVIDER && row.password_hash) || enabled.has(row.provider)));
  if (others.length === 0) throw new ConflictError(ssoMessages.lastWayToSignIn, { code: 'last_sign_in_method' });
  await tx.db('app_auth_accounts').where({ user_id: userId, provider }).delete();
}
