// Test fixtures shared by every area: users with chosen permissions, and a session
// cookie for them (a stored session, signed like express-session signs its own).
import signature from 'cookie-signature';
import type { AppContext } from '../../lib/context.js';
import { storePasswordHash } from '../../models/auth/credentials.js';
import { createSession, publicSessionId } from '../../models/auth/sessions.js';
import { insertUser, type User } from '../../models/auth/users.js';
import { SESSION_COOKIE } from '../../middleware/session.js';

export const PASSWORD = 'correct horse battery';

let roleCounter = 0;

/** A custom role holding exactly these permissions; returns its id. */
export async function makeRole(ctx: AppContext, permissions: string[], name = `role-${++roleCounter}`): Promise<number> {
  const [row] = await ctx.db('app_auth_roles').insert({ name, label: name, description: '', system: false }).returning('id');
  if (permissions.length) await ctx.db('app_auth_role_permissions').insert(permissions.map((key) => ({ role_id: row.id, permission_key: key })));
  return row.id;
}

// One hash of PASSWORD per application (hashing costs even at the tests' cost).
const hashes = new WeakMap<AppContext, Promise<string>>();

export interface MakeUserOptions {
  email?: string;
  name?: string;
  /** Primary role by name (default `user`). */
  role?: string;
  /** Creates a custom role with these permissions and makes it the primary role. */
  permissions?: string[];
  verified?: boolean;
  password?: string | null;
}

let userCounter = 0;

export async function makeUser(ctx: AppContext, options: MakeUserOptions = {}): Promise<User> {
  let role = options.role ?? 'user';
  if (options.permissions) {
    role = `perm-${++roleCounter}`;
    await makeRole(ctx, options.permissions, role);
  }
  const user = await insertUser(ctx, {
    email: options.email ?? `user${++userCounter}@example.com`,
    name: options.name ?? `User ${userCounter}`,
    role,
    emailVerified: options.verified ?? true,
  });
  if (options.password !== null) {
    let hash = hashes.get(ctx);
    if (options.password) hash = ctx.hasher.hash(options.password);
    else if (!hash) hashes.set(ctx, (hash = ctx.hasher.hash(PASSWORD)));
    await storePasswordHash(ctx, user.id, await hash);
  }
  return user;
}

export interface LoggedIn {
  cookie: string;
  sid: string;
  publicId: string;
}

export async function logIn(ctx: AppContext, user: { id: number }, options: { userAgent?: string } = {}): Promise<LoggedIn> {
  const sid = await createSession(ctx, user.id, { ip: '127.0.0.1', userAgent: options.userAgent ?? 'test-agent' });
  const signed = 's:' + signature.sign(sid, ctx.config.sessionSecret);
  return { sid, cookie: `${SESSION_COOKIE}=${encodeURIComponent(signed)}`, publicId: publicSessionId(sid) };
}

/** A user with these permissions, logged in. */
export async function caller(ctx: AppContext, options: MakeUserOptions = {}): Promise<User & LoggedIn> {
  const user = await makeUser(ctx, options);
  return { ...user, ...(await logIn(ctx, user)) };
}

// Smallest valid images of each accepted type (magic bytes are what the server checks).
export const PNG_1X1 = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f0b1e30000000049454e44ae426082',
  'hex',
);
export const JPEG_BYTES = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 1), Buffer.from([0xff, 0xd9])]);
export const WEBP_BYTES = Buffer.concat([Buffer.from('RIFF'), Buffer.from([36, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(24, 0)]);
