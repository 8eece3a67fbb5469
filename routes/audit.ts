// The audit log's rows: GET /app/api/audit and the /admin/audit screen, both under the
// permission audit.view (section «Journal»), registered by routes/core-module.ts.
import { listAuditHandler } from '../controllers/audit/api.js';
import { showAuditLog } from '../controllers/audit/screen.js';
import { auditApiQuery, auditScreenQuery } from '../controllers/audit/schemas.js';
import { route, type AnyRoute } from './define.js';

const viewAudit = { permission: 'audit.view' };

export const auditApiRoutes: AnyRoute[] = [route({ method: 'get', path: '/audit', access: viewAudit, query: auditApiQuery, handler: listAuditHandler })];

export const auditAdminRoutes: AnyRoute[] = [route({ method: 'get', path: '/audit', access: viewAudit, query: auditScreenQuery, handler: showAuditLog })];
