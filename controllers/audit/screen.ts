// GET /admin/audit (audit.view): the audit log as a screen, with the API's filters in
// a GET form, dates in French in the site's time zone, and «Plus ancien» to page on.
import type { AppContext } from '../../lib/context.js';
import { frenchDates } from '../../lib/dates.js';
import { listAuditEvents, type AuditItem } from '../../models/audit.js';
import type { Call } from '../../routes/define.js';
import { renderAdmin } from '../admin/shell.js';
import { hasPermission } from '../../middleware/require-auth.js';
import { actionLabel, auditFilterOptions, targetHref, targetTypeLabel } from './labels.js';
import { AUDIT_PAGE_SIZE, type AuditScreenQuery } from './schemas.js';
import { adminTitles } from '../admin/messages.js';

const DAY_MS = 86_400_000;

/** Minutes east of UTC of `timeZone` at `instant` («GMT+01:00» → 60). */
function offsetMinutes(timeZone: string, instant: number): number {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value ??
    'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0;
}

/** The instant a day («2026-11-23») begins in `timeZone` (offset read at that time, so DST days too). */
export function startOfDay(day: string, timeZone: string): Date {
  const utcMidnight = Date.parse(`${day}T00:00:00Z`);
  const first = utcMidnight - offsetMinutes(timeZone, utcMidnight) * 60_000;
  return new Date(utcMidnight - offsetMinutes(timeZone, first) * 60_000);
}

interface Row {
  at: string;
  actor: AuditItem['actor'];
  ip: string | null;
  action: string;
  actionLabel: string;
  target: (NonNullable<AuditItem['target']> & { typeLabel: string; href?: string }) | null;
  details: string | null;
}

function rowsOf(ctx: AppContext, items: AuditItem[], can: (permission: string) => boolean): Row[] {
  const dates = frenchDates(ctx.config.timeZone);
  const site = ctx.site;
  return items.map((item) => ({
    at: dates.dateTime(item.at),
    actor: item.actor,
    ip: item.ip,
    action: item.action,
    actionLabel: actionLabel(site, item.action),
    target: item.target
      ? { ...item.target, typeLabel: targetTypeLabel(site, item.target.type), href: targetHref(site, item.action, item.target.type, item.target.id, can) }
      : null,
    details: Object.keys(item.details).length ? JSON.stringify(item.details) : null,
  }));
}

/** The query string of the same filters (another cursor, or a link from a row). */
function filterLink(filters: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value !== undefined && value !== '') params.set(key, String(value));
  const search = params.toString();
  return search ? `/admin/audit?${search}` : '/admin/audit';
}

// GET /admin/audit?actor_id=&action=&target_type=&target_id=&from=&to=&cursor=
export async function showAuditLog(call: Call<Record<string, never>, AuditScreenQuery>): Promise<void> {
  const { ctx, query } = call;
  const { cursor, ...form } = query;
  const zone = ctx.config.timeZone;
  const page = await listAuditEvents(
    ctx,
    {
      actor_id: form.actor_id,
      action: form.action,
      target_type: form.target_type,
      target_id: form.target_id,
      from: form.from ? startOfDay(form.from, zone) : undefined,
      // `to` is the last day shown: up to the start of the next one.
      to: form.to ? startOfDay(new Date(Date.parse(`${form.to}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10), zone) : undefined,
    },
    { limit: AUDIT_PAGE_SIZE, cursor },
  );
  const filtered = Object.values(form).some((value) => value !== undefined);
  await renderAdmin(call, 'admin/audit/list.njk', {
    pageTitle: adminTitles.audit,
    rows: rowsOf(ctx, page.items, (permission) => hasPermission(call.req, permission)),
    values: form,
    filtered,
    ...auditFilterOptions(ctx.site),
    older: page.next_cursor ? filterLink({ ...form, cursor: page.next_cursor }) : undefined,
    newest: cursor ? filterLink(form) : undefined,
    actorLink: (actorId: number) => filterLink({ actor_id: actorId }),
    targetLink: (type: string, id: string) => filterLink({ target_type: type, target_id: id }),
  });
}
