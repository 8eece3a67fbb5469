// Account creation: public registration, the first administrator, and creation by an
// administrator (with a password, or by invitation).
import { inTransaction, type AppContext } from '../../lib/context.js';
import { ForbiddenError, UserFacingError } from '../../lib/errors.js';
import { storePasswordHash } from './credentials.js';
import { authMessages } from './messages.js';
import { recordAudit, userTarget } from '../audit.js';
import { assertPasswordPolicy } from './passwords.js';
import { createSession, type SessionOptions } from './sessions.js';
import { countUsers, findUserByEmail, insertUser, type User } from './users.js';
import { issueToken } from './verifications.js';

export interface AccountData {
  email: string;
  password: string;
  name: string;
}

/**
 * True while no account exists: the first visitor of /auth creates the administrator.
 * Once an account exists the answer never changes back, so the application remembers
 * it and stops asking (every /auth page and form asks).
 */
export async function needsFirstRun(ctx: AppContext): Promise<boolean> {
  if (ctx.memo.accountExists) return false;
  const row = await ctx.db('app_auth_users').first('id');
  // A row seen inside a transaction may still be rolled back: only a committed one counts.
  if (row && !ctx.db.isTransaction) ctx.memo.accountExists = true;
  return !row;
}

/** False only when APP_AUTH_REGISTRATION is exactly 'false' and an account exists. */
export async function isRegistrationOpen(ctx: AppContext): Promise<boolean> {
  if (ctx.config.registrationFlag !== 'false') return true;
  return needsFirstRun(ctx);
}

// Registration and first-run creation serialise on this lock so that the count of
// users and the insert that depends on it see the same table: two simultaneous first
// submissions give exactly one administrator.
async function lockUsersTable(tx: AppContext): Promise<void> {
  await tx.db.raw('LOCK TABLE app_auth_users IN SHARE ROW EXCLUSIVE MODE');
}

/**
 * What a sign-up did: a new account and its verification token, or, when the address
 * already has an account, nothing created and a reset token for its owner (none for a
 * suspended account, which gets no link). The caller answers both the same way.
 */
export type Registration = { kind: 'created'; user: User; verificationToken: string } | { kind: 'existing'; user: User; resetToken: string | undefined };

/**
 * Public registration. The very first account passes even when registration is
 * closed, and becomes administrator; others get the role user. Returns the
 * verification token for the caller to send (the /auth form sends the email). An
 * address that already has an account is not refused (that would tell anyone which
 * addresses have accounts): the password is hashed all the same, nothing is created,
 * `auth.sign_up_existing` is recorded and a reset token is returned for its owner.
 */
export async function register(ctx: AppContext, data: AccountData & { ip?: string | null }): Promise<Registration> {
  assertPasswordPolicy(data.password);
  const passwordHash = await ctx.hasher.hash(data.password);
  const created = await inTransaction(ctx, async (tx): Promise<Registration> => {
    await lockUsersTable(tx);
    const first = (await countUsers(tx)) === 0;
    if (!first && ctx.config.registrationFlag === 'false') {
      throw new ForbiddenError(authMessages.registrationClosed, { code: 'registration_closed' });
    }
    const existing = await findUserByEmail(tx, data.email);
    if (existing) {
      const resetToken = existing.suspended_at === null ? (await issueToken(tx, 'password_reset', existing)).token : undefined;
      await recordAudit(tx, { actor: null, ip: data.ip ?? null, action: 'auth.sign_up_existing', target: userTarget(existing) });
      return { kind: 'existing', user: existing, resetToken };
    }
    const user = await insertUser(tx, { email: data.email, name: data.name, role: first ? 'admin' : 'user', emailVerified: false });
    await storePasswordHash(tx, user.id, passwordHash);
    const { token } = await issueToken(tx, 'email_verification', user);
    return { kind: 'created', user, verificationToken: token };
  });
  if (!ctx.db.isTransaction) ctx.memo.accountExists = true;
  return created;
}

/**
 * Creates the first administrator (verified, no email) or fails if any account exists.
 * With session options (SPEC A5), its session is created in the same transaction and
 * the token returned, for setSessionCookie(); the /auth form opens its session through
 * express-session instead (logInSession).
 */
export interface FirstAdminData extends AccountData {
  /** The client's address, for the audit log. */
  ip?: string | null;
  /** Whether the form asked for the setup code (lib/setup-code.ts), recorded with the creation. */
  setupCodeAsked?: boolean;
}

export async function createFirstAdmin(ctx: AppContext, data: FirstAdminData): Promise<User>;
export async function createFirstAdmin(ctx: AppContext, data: FirstAdminData, sessionOptions: SessionOptions): Promise<{ user: User; sessionToken: string }>;
export async function createFirstAdmin(
  ctx: AppContext,
  data: FirstAdminData,
  sessionOptions?: SessionOptions,
): Promise<User | { user: User; sessionToken: string }> {
  assertPasswordPolicy(data.password);
  const passwordHash = await ctx.hasher.hash(data.password);
  const created = await inTransaction(ctx, async (tx) => {
    await lockUsersTable(tx);
    if ((await countUsers(tx)) > 0) throw new UserFacingError(authMessages.adminAlreadyExists, { code: 'admin_exists' });
    const user = await insertUser(tx, { email: data.email, name: data.name, role: 'admin', emailVerified: true });
    await storePasswordHash(tx, user.id, passwordHash);
    // Who took the fresh install, from where, and whether the setup code guarded it.
    await recordAudit(tx, {
      actor: { id: user.id, name: user.name },
      ip: data.ip ?? sessionOptions?.ip ?? null,
      action: 'auth.first_admin_created',
      target: userTarget(user),
      details: { setup_code_asked: data.setupCodeAsked ?? false },
    });
    if (!sessionOptions) return user;
    return { user, sessionToken: await createSession(tx, user.id, sessionOptions) };
  });
  if (!ctx.db.isTransaction) ctx.memo.accountExists = true;
  return created;
}

export interface AdminCreatedUser {
  email: string;
  name: string;
  role?: string;
  password?: string;
}

/**
 * POST /app/api/users: with a password the account is verified and can log in at
 * once; without, it is unverified and an account_setup token (48 h) is returned for
 * the invitation email. Not subject to the registration flag. Called with a
 * transaction's context, it joins that transaction.
 */
export async function createUserByAdmin(ctx: AppContext, data: AdminCreatedUser): Promise<{ user: User; setupToken?: string }> {
  if (data.password !== undefined) assertPasswordPolicy(data.password);
  const passwordHash = data.password === undefined ? undefined : await ctx.hasher.hash(data.password);
  return inTransaction(ctx, async (tx) => {
    const user = await insertUser(tx, { email: data.email, name: data.name, role: data.role ?? 'user', emailVerified: passwordHash !== undefined });
    if (passwordHash !== undefined) {
      await storePasswordHash(tx, user.id, passwordHash);
      return { user };
    }
    const { token } = await issueToken(tx, 'account_setup', user);
    return { user, setupToken: token };
  });
}
