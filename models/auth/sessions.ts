// Server-side sessions in app_auth_sessions: express-session's data (sid, sess,
// expire) plus the owner, client address, user agent and last-seen time, and a public
// id (derived from the sid, never the sid itself) for the profile's session list.
// SiteSessionStore is the express-session store over the application's knex pool.
import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import session from 'express-session';
import type { AppContext } from '../../lib/context.js';
import { AUDIT_INSERT, auditBindings, type AuditEvent } from '../audit.js';

export const SESSION_LIFETIME_MS = 7 * 86_400_000;
export const REFRESHED_SESSION_LIFETIME_MS = 30 * 86_400_000;
// last_seen_at is written at most this often per session, so that an authenticated
// request costs one session read and, on average, almost no write.
export const LAST_SEEN_RESOLUTION_MS = 5 * 60_000;
// Expired rows are deleted at most this often, by a session write that happens anyway.
export const SESSION_PRUNE_INTERVAL_MS = 15 * 60_000;

// Besides its absolute expiry (the `expire` column, 7 days from the login, or 30 after a
// refresh), a session ends once unused for SESSION_IDLE_TIMEOUT (2 days by default):
// last_seen_at, written at most every LAST_SEEN_RESOLUTION_MS, is the last request that
// read it, and every read and count below asks for it to be recent enough. Idle rows are
// pruned with the expired ones. No index on last_seen_at: the prune scans the table at
// most every 15 minutes, and every other statement finds its row by sid or user_id.
function idleSince(ctx: AppContext): Date {
  return new Date(ctx.clock.nowMs() - ctx.config.sessionIdleTimeoutMs);
}

const TABLE = 'app_auth_sessions';

/** What this product keeps in a session besides express-session's cookie data. */
interface SiteSessionData {
  userId?: number;
  ip?: string;
  userAgent?: string;
  lastSeenAt?: number;
  /** How it was opened (`password`, `passkey`, `sso:<id>`) and the second step that completed it: the session list shows them. */
  signInMethod?: string;
  secondFactor?: string;
  /** Opened under the `__Host-` cookie name (middleware/session.ts): never taken under the old one. */
  hostCookie?: boolean;
  flash?: Array<{ type: 'success' | 'error'; message: string }>;
}

declare module 'express-session' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges our fields into express-session's
  interface SessionData extends SiteSessionData {}
}

type StoredSession = session.SessionData & SiteSessionData;

export function publicSessionId(sid: string): string {
  return createHash('sha256').update(sid).digest('hex').slice(0, 32);
}

function expiryOf(ctx: AppContext, sess: StoredSession): Date {
  const expires = sess.cookie?.expires;
  return expires ? new Date(expires) : new Date(ctx.clock.nowMs() + SESSION_LIFETIME_MS);
}

// A new session takes its expiry from its cookie; a stored one keeps the expiry it has
// (no sliding: express-session moves the cookie's expiry on each save, the row does not).
const UPSERT = `INSERT INTO ${TABLE} (sid, sess, expire, user_id, public_id, ip, user_agent, last_seen_at, sign_in_method, second_factor)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (sid) DO UPDATE SET sess = EXCLUDED.sess, user_id = EXCLUDED.user_id, ip = EXCLUDED.ip,
    user_agent = EXCLUDED.user_agent, last_seen_at = EXCLUDED.last_seen_at,
    sign_in_method = EXCLUDED.sign_in_method, second_factor = EXCLUDED.second_factor`;

interface WriteOptions {
  /** The session this one replaces (login on a browser that had one): deleted by the same statement. */
  replaces?: string;
  /** Also delete the sessions expired before this time. */
  pruneBefore?: Date;
  /** The audit event of this write (a login), inserted by the same statement. */
  audit?: AuditEvent;
}

async function writeSession(ctx: AppContext, sid: string, sess: StoredSession, options: WriteOptions = {}): Promise<void> {
  // The session object is not modified: express-session compares it with what it saved.
  // A save is a use, as a touch is (express-session touches only what it does not save).
  const now = ctx.clock.nowMs();
  const lastSeenAt = sess.lastSeenAt !== undefined && now - sess.lastSeenAt < LAST_SEEN_RESOLUTION_MS ? sess.lastSeenAt : now;
  const values = [
    sid,
    JSON.stringify({ ...sess, lastSeenAt }),
    expiryOf(ctx, sess),
    sess.userId ?? null,
    publicSessionId(sid),
    sess.ip?.slice(0, 64) ?? null,
    sess.userAgent?.slice(0, 512) ?? null,
    new Date(lastSeenAt),
    sess.signInMethod?.slice(0, 40) ?? null,
    sess.secondFactor?.slice(0, 16) ?? null,
  ];
  const removed: string[] = [];
  const bindings: Array<string | Date> = [];
  if (options.replaces) {
    removed.push('sid = ?');
    bindings.push(options.replaces);
  }
  // Skips rows another statement holds, so the sweep never waits on them.
  if (options.pruneBefore) {
    removed.push(`sid IN (SELECT sid FROM ${TABLE} WHERE expire <= ? OR last_seen_at <= ? FOR UPDATE SKIP LOCKED)`);
    bindings.push(options.pruneBefore, idleSince(ctx));
  }
  const clauses: string[] = [];
  const clauseBindings: Array<string | number | Date | null> = [];
  // The deletions ride on this write: no statement of their own, nothing left running
  // after it. The row written is left out (one statement may not touch a row twice).
  if (removed.length > 0) {
    clauses.push(`removed AS (DELETE FROM ${TABLE} WHERE sid <> ? AND (${removed.join(' OR ')}))`);
    clauseBindings.push(sid, ...bindings);
  }
  // So does the audit event: one statement, so the session and its event exist together.
  if (options.audit) {
    clauses.push(`audit AS (${AUDIT_INSERT})`);
    clauseBindings.push(...auditBindings(ctx, options.audit));
  }
  if (clauses.length === 0) {
    await ctx.db.raw(UPSERT, values);
    return;
  }
  await ctx.db.raw(`WITH ${clauses.join(', ')} ${UPSERT}`, [...clauseBindings, ...values]);
}

type Callback = (error?: unknown) => void;

/**
 * express-session's store over the application's pool, so session statements share
 * its connections, its transactions and its handling of lost connections. A request
 * without the cookie costs nothing; one with it costs one read; last_seen_at is
 * written at most every LAST_SEEN_RESOLUTION_MS.
 */
export class SiteSessionStore extends session.Store {
  // Requests whose session was read from the table: only those have a row to delete
  // when their id is regenerated (at login); a session made for this request has none.
  private readonly loaded = new WeakSet<Request>();
  // Regenerated sessions and the stored session each replaces, deleted when it is saved.
  private readonly replacing = new WeakMap<object, string>();
  // What was last written for a session object. express-session saves a regenerated
  // session once more as the answer ends (it compares with the id the request began
  // with): an unchanged session (its cookie aside, which never moves the expiry) is
  // not written twice.
  private readonly written = new WeakMap<object, string>();
  private lastPrune = 0;
  // Audit events of the next write (login) or deletion (logout) of a session, by sid:
  // taken by that statement, which inserts the event with it.
  private readonly auditNext = new Map<string, AuditEvent>();

  constructor(private readonly ctx: AppContext) {
    super();
  }

  override get(sid: string, callback: (error: unknown, sess?: session.SessionData | null) => void): void {
    this.ctx.db
      .raw<{ rows: Array<{ sess: session.SessionData }> }>(`SELECT sess FROM ${TABLE} WHERE sid = ? AND expire > ? AND last_seen_at > ?`, [
        sid,
        this.ctx.clock.now(),
        idleSince(this.ctx),
      ])
      .then(
        ({ rows }) => callback(null, rows[0]?.sess ?? null),
        (error: unknown) => callback(error),
      );
  }

  override set(sid: string, sess: StoredSession, callback?: Callback): void {
    const content = `${sid} ${JSON.stringify({ ...sess, cookie: undefined })}`;
    if (this.written.get(sess) === content) {
      callback?.();
      return;
    }
    const now = this.ctx.clock.nowMs();
    const prune = now - this.lastPrune >= SESSION_PRUNE_INTERVAL_MS;
    if (prune) this.lastPrune = now;
    const replaces = this.replacing.get(sess);
    this.replacing.delete(sess);
    const audit = this.takeAudit(sid);
    writeSession(this.ctx, sid, sess, { replaces, pruneBefore: prune ? new Date(now) : undefined, audit }).then(
      () => {
        this.written.set(sess, content);
        callback?.();
      },
      (error: unknown) => callback?.(error),
    );
  }

  override destroy(sid: string, callback?: Callback): void {
    const audit = this.takeAudit(sid);
    const deletion = audit
      ? this.ctx.db.raw(`WITH audit AS (${AUDIT_INSERT}) DELETE FROM ${TABLE} WHERE sid = ?`, [...auditBindings(this.ctx, audit), sid])
      : this.ctx.db(TABLE).where({ sid }).delete();
    deletion.then(
      () => callback?.(),
      (error: unknown) => callback?.(error),
    );
  }

  /** The next write or deletion of session `sid` records `event` in the same statement. */
  recordWithNext(sid: string, event: AuditEvent): void {
    this.auditNext.set(sid, event);
  }

  private takeAudit(sid: string): AuditEvent | undefined {
    const event = this.auditNext.get(sid);
    if (event) this.auditNext.delete(sid);
    return event;
  }

  override touch(sid: string, sess: StoredSession, callback?: () => void): void {
    const now = this.ctx.clock.nowMs();
    if (sess.lastSeenAt && now - sess.lastSeenAt < LAST_SEEN_RESOLUTION_MS) {
      callback?.();
      return;
    }
    // express-session's touch callback takes no error: a failed write is only logged.
    this.ctx
      .db(TABLE)
      .where({ sid })
      .update({ sess: JSON.stringify({ ...sess, lastSeenAt: now }), last_seen_at: new Date(now) })
      .catch((error: unknown) => this.ctx.logger.warn({ err: (error as Error).message }, 'could not record when a session was last seen'))
      .finally(() => callback?.());
  }

  override createSession(req: Request, sess: session.SessionData): session.Session & session.SessionData {
    this.loaded.add(req);
    return super.createSession(req, sess);
  }

  /**
   * A new id and an empty session for this request, the stored session left as it is
   * (a session cookie that is not this browser's own: middleware/session.ts).
   */
  detach(req: Request): void {
    (this as unknown as { generate(req: Request): void }).generate(req);
  }

  /**
   * A new id and an empty session (login: a planted id must be worthless). The stored
   * session it replaces is deleted by the statement that saves the new one, which
   * logInSession() does at once; a request whose session was never stored has none.
   */
  override regenerate(req: Request, callback: (error?: unknown) => void): void {
    const previous = this.loaded.has(req) ? req.sessionID : undefined;
    // express-session installs generate() on its store.
    (this as unknown as { generate(req: Request): void }).generate(req);
    if (previous) this.replacing.set(req.session, previous);
    callback();
  }
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
export async function createSession(ctx: AppContext, userId: number, options: SessionOptions = {}): Promise<string> {
  const sid = randomBytes(24).toString('base64url');
  const maxAge = options.maxAgeMs ?? SESSION_LIFETIME_MS;
  const sess = {
    cookie: { originalMaxAge: maxAge, expires: new Date(ctx.clock.nowMs() + maxAge).toISOString(), httpOnly: true, path: '/', sameSite: 'lax' },
    userId,
    ip: options.ip,
    userAgent: options.userAgent,
  } as unknown as StoredSession;
  await writeSession(ctx, sid, sess);
  return sid;
}

export interface ValidSession {
  sid: string;
  publicId: string;
  userId: number;
  expiresAt: Date;
}

function plausibleToken(token: unknown): token is string {
  return typeof token === 'string' && token.length > 0 && token.length <= 255;
}

/** The session behind a token, if it exists, belongs to a user and has not expired. */
export async function validateSession(ctx: AppContext, token: string): Promise<ValidSession | null> {
  if (!plausibleToken(token)) return null;
  const row = await ctx
    .db(TABLE)
    .where({ sid: token })
    .andWhere('expire', '>', ctx.clock.now())
    .andWhere('last_seen_at', '>', idleSince(ctx))
    .whereNotNull('user_id')
    .first('sid', 'public_id', 'user_id', 'expire');
  if (!row || row.user_id === null) return null;
  return { sid: row.sid, publicId: publicSessionId(row.sid), userId: row.user_id, expiresAt: row.expire };
}

/** Extends a valid session to 30 days from now (row and stored cookie); returns the new expiry, or null. */
export async function extendSession(ctx: AppContext, token: string): Promise<Date | null> {
  if (!plausibleToken(token)) return null;
  const expiresAt = new Date(ctx.clock.nowMs() + REFRESHED_SESSION_LIFETIME_MS);
  // One statement: the check and the extension cannot be split by a revocation.
  const { rows } = await ctx.db.raw<{ rows: Array<{ expire: Date }> }>(
    `UPDATE ${TABLE}
     SET expire = ?,
         sess = (sess::jsonb || jsonb_build_object('cookie',
           COALESCE(sess::jsonb -> 'cookie', '{}'::jsonb) || jsonb_build_object('originalMaxAge', ?::bigint, 'expires', ?::text)))::json
     WHERE sid = ? AND expire > ? AND last_seen_at > ? AND user_id IS NOT NULL
     RETURNING expire`,
    [expiresAt, REFRESHED_SESSION_LIFETIME_MS, expiresAt.toISOString(), token, ctx.clock.now(), idleSince(ctx)],
  );
  return rows[0]?.expire ?? null;
}

export interface SessionSummary {
  id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  current: boolean;
  /** How it was opened: `password`, `passkey` or `sso`; null for a session older than this column. */
  sign_in_method: string | null;
  /** The provider's id and label, for `sso` (the label null once the provider is deleted). */
  provider: { id: number; label: string | null } | null;
  /** The second step: `totp`, `recovery`, `passkey`, `provider` (the provider's MFA), or null. */
  second_factor: string | null;
}

function methodOf(stored: string | null, label: string | null): Pick<SessionSummary, 'sign_in_method' | 'provider'> {
  if (stored?.startsWith('sso:')) return { sign_in_method: 'sso', provider: { id: Number(stored.slice(4)), label } };
  return { sign_in_method: stored, provider: null };
}

interface SessionListRow {
  sid: string;
  public_id: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
  expire: Date;
  sign_in_method: string | null;
  second_factor: string | null;
  provider_label: string | null;
}

export async function listUserSessions(ctx: AppContext, userId: number, currentSid?: string): Promise<SessionSummary[]> {
  const rows: SessionListRow[] = await ctx
    .db(`${TABLE} as s`)
    .leftJoin('app_auth_sso_providers as p', ctx.db.raw(`s.sign_in_method = 'sso:' || p.id`))
    .where({ 's.user_id': userId })
    .andWhere('s.expire', '>', ctx.clock.now())
    .andWhere('s.last_seen_at', '>', idleSince(ctx))
    .orderBy('s.last_seen_at', 'desc')
    .select(
      's.sid',
      's.public_id',
      's.ip',
      's.user_agent',
      's.created_at',
      's.last_seen_at',
      's.expire',
      's.sign_in_method',
      's.second_factor',
      'p.label as provider_label',
    );
  return rows.map((row) => ({
    id: row.public_id ?? publicSessionId(row.sid),
    ip: row.ip,
    user_agent: row.user_agent,
    created_at: row.created_at,
    last_seen_at: row.last_seen_at,
    expires_at: row.expire,
    current: row.sid === currentSid,
    ...methodOf(row.sign_in_method, row.provider_label),
    second_factor: row.second_factor,
  }));
}

export async function countUserSessions(ctx: AppContext, userId: number): Promise<number> {
  const row = await ctx
    .db(TABLE)
    .where({ user_id: userId })
    .andWhere('expire', '>', ctx.clock.now())
    .andWhere('last_seen_at', '>', idleSince(ctx))
    .count<{ count: number }[]>({ count: '*' })
    .first();
  return Number(row?.count ?? 0);
}

/** The account of a stored session, expired or not (a form sent after its expiry, routes/lost-session.ts); undefined once its row is gone. */
export async function ownerOfSession(ctx: AppContext, sid: string): Promise<number | undefined> {
  const row = await ctx.db(TABLE).where({ sid }).first('user_id');
  return row?.user_id ?? undefined;
}

/** Revokes one of the user's sessions by public id; false when it is not theirs. */
export async function revokeUserSession(ctx: AppContext, userId: number, publicId: string): Promise<boolean> {
  const deleted = await ctx.db(TABLE).where({ user_id: userId, public_id: publicId }).delete();
  return deleted > 0;
}

/**
 * Revokes every session of the user, or every one but `exceptSid`. Returns the count.
 * A login waiting for its second factor (app_auth_pending_logins) ends with them: it is
 * a session about to open, and whatever closes the sessions (a password changed by
 * anyone, a reset, a suspension, «close the other sessions») must not leave a browser
 * that typed the old password one code away from a new one.
 */
export async function revokeAllUserSessions(ctx: AppContext, userId: number, options: { exceptSid?: string } = {}): Promise<number> {
  await ctx.db('app_auth_pending_logins').where({ user_id: userId }).delete();
  const query = ctx.db(TABLE).where({ user_id: userId });
  if (options.exceptSid) query.whereNot({ sid: options.exceptSid });
  return query.delete();
}
