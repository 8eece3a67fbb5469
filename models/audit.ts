// The audit log: every SQL statement on app_audit_events. An event is written with the
// ctx of the change it records (inside its transaction), so it is committed or rolled
// back with it, at the cost of one INSERT. The table is append-only (a trigger refuses
// UPDATE and DELETE); the retention prune is models/audit-prune.ts.
import type { AppContext } from '../lib/context.js';
import { ValidationError } from '../lib/errors.js';
import type { AuditEventRow } from '../lib/tables.js';
import { auditMessages } from '../lib/messages.js';

interface AuditActor {
  id: number;
  name: string;
}

export interface AuditTarget {
  type: string;
  id: string | number | null;
  label: string | null;
}

export interface AuditEvent {
  /** null: an anonymous visitor or the system. */
  actor: AuditActor | null;
  /** The client address (req.ip); null for the system. */
  ip: string | null;
  /** Dotted, e.g. 'auth.login', 'user.suspended'. */
  action: string;
  target?: AuditTarget | null;
  /** Never a secret, a token, a password or a typed address. */
  details?: Record<string, unknown>;
}

// Column sizes of the migration: a longer label or name is cut, never refused (the
// change being recorded must not fail for its log line).
const NAME_MAX = 300;
const LABEL_MAX = 500;
const IP_MAX = 64;

function cut(value: string | null | undefined, max: number): string | null {
  if (value === null || value === undefined) return null;
  return value.length > max ? value.slice(0, max) : value;
}

/**
 * The INSERT of one event and its bindings, for a write that carries its event in its
 * own statement (a data-modifying WITH clause: the session written at login, deleted
 * at logout), so the event commits or fails with it.
 */
export const AUDIT_INSERT = `INSERT INTO app_audit_events (at, actor_id, actor_name, ip, action, target_type, target_id, target_label, details)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

export function auditBindings(ctx: AppContext, event: AuditEvent): Array<string | number | Date | null> {
  const target = event.target ?? null;
  return [
    ctx.clock.now(),
    event.actor?.id ?? null,
    cut(event.actor?.name, NAME_MAX),
    cut(event.ip, IP_MAX),
    event.action,
    target?.type ?? null,
    target && target.id !== null ? String(target.id) : null,
    cut(target?.label, LABEL_MAX),
    JSON.stringify(event.details ?? {}),
  ];
}

/** Writes one event with ctx.db: call it with the transaction's ctx of the change it records. */
export async function recordAudit(ctx: AppContext, event: AuditEvent): Promise<void> {
  await ctx.db.raw(AUDIT_INSERT, auditBindings(ctx, event));
}

// ---------------------------------------------------------------- listing

export interface AuditFilters {
  actor_id?: number;
  action?: string;
  target_type?: string;
  target_id?: string;
  from?: Date;
  to?: Date;
}

export interface AuditItem {
  id: number;
  at: string;
  actor: { id: number | null; name: string | null } | null;
  ip: string | null;
  action: string;
  target: { type: string; id: string | null; label: string | null } | null;
  details: Record<string, unknown>;
}

export interface AuditPage {
  items: AuditItem[];
  next_cursor: string | null;
}

// The cursor is the id of the last event shown, wrapped so clients treat it as opaque.
const CURSOR_PREFIX = 'a1.';

function encodeCursor(id: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${id}`, 'utf8').toString('base64url');
}

/** The id a cursor carries; a cursor this code did not produce is a 400. */
function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,40}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^a1\.([1-9][0-9]{0,15})$/.exec(text);
  const id = match ? Number(match[1]) : NaN;
  if (!Number.isSafeInteger(id)) {
    throw new ValidationError(auditMessages.badCursor, { code: 'bad_cursor', details: [{ field: 'cursor', message: auditMessages.badCursor }] });
  }
  return id;
}

function itemOf(row: AuditEventRow): AuditItem {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor_id === null && row.actor_name === null ? null : { id: row.actor_id, name: row.actor_name },
    ip: row.ip,
    action: row.action,
    target: row.target_type === null ? null : { type: row.target_type, id: row.target_id, label: row.target_label },
    details: row.details,
  };
}

/**
 * Events newest first (by id, the order they were recorded), `limit` at a time: keyset
 * pagination, each page one index range scan whatever the depth.
 */
export async function listAuditEvents(ctx: AppContext, filters: AuditFilters, page: { limit: number; cursor?: string }): Promise<AuditPage> {
  const before = page.cursor ? decodeCursor(page.cursor) : undefined;
  const query = ctx.db('app_audit_events').select('*');
  if (filters.actor_id !== undefined) query.where('actor_id', filters.actor_id);
  if (filters.action !== undefined) query.where('action', filters.action);
  if (filters.target_type !== undefined) query.where('target_type', filters.target_type);
  if (filters.target_id !== undefined) query.where('target_id', filters.target_id);
  if (filters.from !== undefined) query.where('at', '>=', filters.from);
  if (filters.to !== undefined) query.where('at', '<', filters.to);
  if (before !== undefined) query.where('id', '<', before);
  // One more than asked tells whether a next page exists, without a count.
  const rows = await query.orderBy('id', 'desc').limit(page.limit + 1);
  const items = rows.slice(0, page.limit).map(itemOf);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > page.limit && last ? encodeCursor(last.id) : null };
}

// ---------------------------------------------------------------- who acts

/** Whoever caused an event, as the models receive it (a Caller carries both). */
export interface AuditSource {
  actor: AuditActor | null;
  ip: string | null;
}

/** The actor and address of a logged-in caller (models/auth/roles.ts Caller). */
export function sourceOf(caller: { id: number; name: string; ip?: string | null }): AuditSource {
  return { actor: { id: caller.id, name: caller.name }, ip: caller.ip ?? null };
}

/** A user as an event's target. */
export function userTarget(user: { id: number; name: string; email?: string }): AuditTarget {
  return { type: 'user', id: user.id, label: user.name };
}

/** Whoever acts on content (pages, media): a logged-in user and the client address. */
export interface Actor {
  id: number;
  name: string;
  ip: string | null;
}

/** As sourceOf; null (a script, a test, the system) records no actor and no address. */
export function sourceOfActor(actor: Actor | null): AuditSource {
  return actor ? sourceOf(actor) : { actor: null, ip: null };
}
