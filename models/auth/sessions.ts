// Server-side sessions in app_auth_sessions: the connect-pg-simple store (sid, sess,
// expire) extended with the owner, client address and user agent, and a public id
// (derived from the sid, never the sid itself) for the profile's session list.
import { createHash, randomBytes } from 'node:crypto';
import connectPgSimple from 'connect-pg-simple';
import session from 'express-session';
import { db, type Executor } from '../../lib/db.js';
import { nowMs } from '../../lib/clock.js';

export const SESSION_LIFETIME_MS = 7 * 86_400_000;
export const REFRESHED_SESSION_LIFETIME_MS = 30 * 86_400_000;
// last_seen_at is written at most this often per session, so that an authenticated
// request costs one session read and, on average, almost no write.
export const LAST_SEEN_RESOLUTION_MS = 5 * 60_000;

/** What this product keeps in a session besides express-session's cookie data. */
export interface SiteSessionData {
  userId?: number;
  ip?: string;
  userAgent?: string;
  lastSeenAt?: number;
  flash?: Array<{ type: 'success' | 'error'; message: string }>;
}

declare module 'express-session' {
  interface SessionData extends SiteSessionData {}
}

type StoredSession = session.SessionData & SiteSessionData;

export function publicSessionId(sid: string): string {
  return createHash('sha256').update(sid).digest('hex').slice(0, 32);
}

function expiryOf(sess: StoredSession): Date {
  const expires = sess.cookie?.expires;
  return expires ? new Date(expires) : new Date(nowMs() + SESSION_LIFETIME_MS);
}

// connect-pg-simple speaks to a pg-style pool; this one borrows knex's connections so
// the process keeps a single pool (and a single place handling lost connections).
const knexPool = {
  async query(text: string, values?: unknown[]) {
    return db().raw(text.replace(/\$(\d+)/g, '?'), (values ?? []) as never);
  },
};

const PGStore = connectPgSimple(session);

export class SiteSessionStore extends PGStore {
  constructor() {
    super({ pool: knexPool as never, tableName: 'app_auth_sessions', pruneSessionInterval: 15 * 60 });
  }

  override set(sid: string, sess: StoredSession, callback?: (error?: unknown) => void): void {
    writeSession(sid, sess).then(() => callback?.(), (error) => callback?.(error));
  }

  override touch(sid: string, sess: StoredSession, callback?: (error?: unknown) => void): void {
    if (sess.lastSeenAt && nowMs() - sess.lastSeenAt < LAST_SEEN_RESOLUTION_MS) {
      callback?.();
      return;
    }
    sess.lastSeenAt = nowMs();
    db()('app_auth_sessions')
      .where({ sid })
      .update({ sess: JSON.stringify(sess), last_seen_at: new Date(sess.lastSeenAt) })
      .then(() => callback?.(), (error: unknown) => callback?.(error));
  }
}

async function writeSession(sid: string, sess: StoredSession, trx: Executor = db()): Promise<void> {
  sess.lastSeenAt ??= nowMs();
  const row = {
    sid,
    sess: JSON.stringify(sess),
    expire: expiryOf(sess),
    user_id: sess.userId ?? null,
    public_id: publicSessionId(sid),
    ip: sess.ip?.slice(0, 64) ?? null,
    user_agent: sess.userAgent?.slice(0, 512) ?? null,
    last_seen_at: new Date(sess.lastSeenAt),
  };
  await trx('app_auth_sessions').insert(row).onConflict('sid').merge(['sess', 'expire', 'user_id', 'ip', 'user_agent', 'last_seen_at']);
}

export interface SessionOptions {
  ip?: string;
  userAgent?: string;
  maxAgeMs?: number;
}

/**
 * Creates a stored session for a user outside a request (first-run creation, external
 * authentication) and returns its token, which setSessionCookie() can then adopt.
 */
export async function createSession(userId: number, options: SessionOptions = {}, trx: Executor = db()): Promise<string> {
  const sid = randomBytes(24).toString('base64url');
  const maxAge = options.maxAgeMs ?? SESSION_LIFETIME_MS;
  const sess = {
    cookie: { originalMaxAge: maxAge, expires: new Date(nowMs() + maxAge).toISOString(), httpOnly: true, path: '/', sameSite: 'lax' },
    userId,
    ip: options.ip,
    userAgent: options.userAgent,
  } as unknown as StoredSession;
  await writeSession(sid, sess, trx);
  return sid;
}

export interface ValidSession {
  sid: string;
  publicId: string;
  userId: number;
  expiresAt: Date;
}

/** The session behind a token, if it exists, belongs to a user and has not expired. */
export async function validateSession(token: string, trx: Executor = db()): Promise<ValidSession | null> {
  if (typeof token !== 'string' || token.length === 0 || token.length > 255) return null;
  const row = await trx('app_auth_sessions')
    .where({ sid: token })
    .andWhere('expire', '>', new Date(nowMs()))
    .whereNotNull('user_id')
    .first('sid', 'public_id', 'user_id', 'expire');
  if (!row) return null;
  return { sid: row.sid, publicId: row.public_id, userId: row.user_id, expiresAt: row.expire };
}

/** Extends a valid session to 30 days from now; returns the new expiry, or null. */
export async function extendSession(token: string, trx: Executor = db()): Promise<Date | null> {
  const valid = await validateSession(token, trx);
  if (!valid) return null;
  const expiresAt = new Date(nowMs() + REFRESHED_SESSION_LIFETIME_MS);
  const row = await trx('app_auth_sessions').where({ sid: token }).first('sess');
  const sess = (typeof row.sess === 'string' ? JSON.parse(row.sess) : row.sess) as StoredSession;
  sess.cookie = { ...sess.cookie, originalMaxAge: REFRESHED_SESSION_LIFETIME_MS, expires: expiresAt } as never;
  await trx('app_auth_sessions').where({ sid: token }).update({ sess: JSON.stringify(sess), expire: expiresAt });
  return expiresAt;
}

export interface SessionSummary {
  id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  current: boolean;
}

export async function listUserSessions(userId: number, currentSid?: string, trx: Executor = db()): Promise<SessionSummary[]> {
  const rows = await trx('app_auth_sessions')
    .where({ user_id: userId })
    .andWhere('expire', '>', new Date(nowMs()))
    .orderBy('last_seen_at', 'desc')
    .select('sid', 'public_id', 'ip', 'user_agent', 'created_at', 'last_seen_at', 'expire');
  return rows.map((row) => ({
    id: row.public_id,
    ip: row.ip,
    user_agent: row.user_agent,
    created_at: row.created_at,
    last_seen_at: row.last_seen_at,
    expires_at: row.expire,
    current: row.sid === currentSid,
  }));
}

export async function countUserSessions(userId: number, trx: Executor = db()): Promise<number> {
  const row = await trx('app_auth_sessions')
    .where({ user_id: userId })
    .andWhere('expire', '>', new Date(nowMs()))
    .count<{ count: number }[]>({ count: '*' })
    .first();
  return Number(row?.count ?? 0);
}

/** Revokes one of the user's sessions by public id; false when it is not theirs. */
export async function revokeUserSession(userId: number, publicId: string, trx: Executor = db()): Promise<boolean> {
  const deleted = await trx('app_auth_sessions').where({ user_id: userId, public_id: publicId }).delete();
  return deleted > 0;
}

/** Revokes every session of the user, or every one but `exceptSid`. Returns the count. */
export async function revokeAllUserSessions(userId: number, options: { exceptSid?: string } = {}, trx: Executor = db()): Promise<number> {
  const query = trx('app_auth_sessions').where({ user_id: userId });
  if (options.exceptSid) query.whereNot({ sid: options.exceptSid });
  return query.delete();
}
