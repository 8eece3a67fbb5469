// GET /app/api/audit (audit.view): the audit log, newest first, keyset pagination.
import { listAuditEvents } from '../../models/audit.js';
import type { Call } from '../../routes/define.js';
import type { AuditQuery } from './schemas.js';

// GET /app/api/audit?actor_id=&action=&target_type=&target_id=&from=&to=&cursor=&limit=
export async function listAuditHandler({ ctx, res, query }: Call<Record<string, never>, AuditQuery>): Promise<void> {
  const { cursor, limit, ...filters } = query;
  res.json(await listAuditEvents(ctx, filters, { limit, cursor }));
}
