// Account creation: public registration, the first administrator, and creation by an
// administrator (with a password, or by invitation).
import { activeConfig } from '../../lib/config.js';
import { db, type Executor } from '../../lib/db.js';
import { ForbiddenError, UserFacingError } from '../../lib/errors.js';
import { hashPassword } from '../../lib/password-hasher.js';
import { storePasswordHash } from './credentials.js';
import { authMessages } from './messages.js';
import { assertPasswordPolicy } from './passwords.js';
import { createSession, type SessionOptions } from './sessions.js';
import { countUsers, insertUser, type User } from './users.js';
import { issueToken } from './verifications.js';

export interface AccountData {
  email: string;
  password: string;
  name: string;
}

/** True while no account exists: the first visitor of /auth creates the administrator. */
export async function needsFirstRun(trx: Executor = db()): Promise<boolean> {
  const row = await trx('app_auth_users').first('id');
  return !row;
}

/** False only when APP_AUTH_REGISTRATION is exactly 'false' and an account exists. */
export async function isRegistrationOpen(trx: Executor = db()): Promise<boolean> {
  if (activeConfig().registrationFlag !== 'false') return true;
  return needsFirstRun(trx);
}

// Registration and first-run creation serialise on this lock so that the count of
// users and the insert that depends on it see the same table: two simultaneous first
// submissions give exactly one administrator.
async function lockUsersTable(trx: Executor): Promise<void> {
  await trx.raw('LOCK TABLE app_auth_users IN SHARE ROW EXCLUSIVE MODE');
}

/**
 * Public registration. The very first account passes even when registration is
 * closed, and becomes administrator; others get the role user. Returns the
 * verification token for the caller to send (registerAction sends the email).
 */
export async function register(data: AccountData): Promise<{ user: User; verificationToken: string }> {
  assertPasswordPolicy(data.password);
  const passwordHash = await hashPassword(data.password);
  return db().transaction(async (trx) => {
    await lockUsersTable(trx);
    const first = (await countUsers(trx)) === 0;
    if (!first && activeConfig().registrationFlag === 'false') {
      throw new ForbiddenError(authMessages.registrationClosed, { code: 'registration_closed' });
    }
    const user = await insertUser({ email: data.email, name: data.name, role: first ? 'admin' : 'user', emailVerified: false }, trx);
    await storePasswordHash(user.id, passwordHash, trx);
    const { token } = await issueToken('email_verification', user, {}, trx);
    return { user, verificationToken: token };
  });
}

/**
 * Creates the first administrator (verified, no email) or fails if any account exists.
 * With session options (SPEC A5), its session is created in the same transaction and
 * the token returned, for setSessionCookie(); the /auth form opens its session through
 * express-session instead (logInSession).
 */
export async function createFirstAdmin(data: AccountData): Promise<User>;
export async function createFirstAdmin(data: AccountData, sessionOptions: SessionOptions): Promise<{ user: User; sessionToken: string }>;
export async function createFirstAdmin(data: AccountData, sessionOptions?: SessionOptions): Promise<User | { user: User; sessionToken: string }> {
  assertPasswordPolicy(data.password);
  const passwordHash = await hashPassword(data.password);
  return db().transaction(async (trx) => {
    await lockUsersTable(trx);
    if ((await countUsers(trx)) > 0) throw new UserFacingError(authMessages.adminAlreadyExists, { code: 'admin_exists' });
    const user = await insertUser({ email: data.email, name: data.name, role: 'admin', emailVerified: true }, trx);
    await storePasswordHash(user.id, passwordHash, trx);
    if (!sessionOptions) return user;
    return { user, sessionToken: await createSession(user.id, sessionOptions, trx) };
  });
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
 * the invitation email. Not subject to the registration flag.
 */
export async function createUserByAdmin(
  data: AdminCreatedUser,
  trx?: Executor,
): Promise<{ user: User; setupToken?: string }> {
  if (data.password !== undefined) assertPasswordPolicy(data.password);
  const passwordHash = data.password === undefined ? undefined : await hashPassword(data.password);
  const work = async (executor: Executor) => {
    const user = await insertUser(
      { email: data.email, name: data.name, role: data.role ?? 'user', emailVerified: passwordHash !== undefined },
      executor,
    );
    if (passwordHash !== undefined) {
      await storePasswordHash(user.id, passwordHash, executor);
      return { user };
    }
    const { token } = await issueToken('account_setup', user, {}, executor);
    return { user, setupToken: token };
  };
  return trx ? work(trx) : db().transaction(work);
}
