// The filters of the audit log, shared by GET /app/api/audit (strict JSON surface) and
// the /admin/audit screen (a GET form: an empty field means no filter).
import Joi from 'joi';
import { idParam, text } from '../../lib/schema-primitives.js';
import { auditQueryMessages } from './messages.js';

export const AUDIT_PAGE_SIZE = 50;
const AUDIT_MAX_PAGE_SIZE = 200;

export interface AuditQuery {
  actor_id?: number;
  action?: string;
  target_type?: string;
  target_id?: string;
  from?: Date;
  to?: Date;
  cursor?: string;
  limit: number;
}

const action = text()
  .trim()
  .max(64)
  .pattern(/^[a-z0-9_]+(\.[a-z0-9_]+)*$/)
  .messages({ 'string.pattern.base': auditQueryMessages.action });
const targetType = text()
  .trim()
  .max(32)
  .pattern(/^[a-z0-9_]+$/)
  .messages({ 'string.pattern.base': auditQueryMessages.targetType });
const targetId = text().trim().max(64);
const cursor = text().max(200);
const limit = Joi.number().integer().min(1).max(AUDIT_MAX_PAGE_SIZE).default(AUDIT_PAGE_SIZE);

// `from` is inclusive, `to` exclusive; ISO 8601 (a date alone is midnight UTC).
const instant = Joi.date().iso().min('2000-01-01').max('9999-12-31').messages({
  'date.format': auditQueryMessages.instant,
  'date.base': auditQueryMessages.instant,
});

export const auditApiQuery = Joi.object<AuditQuery>({
  // Plain digits, as an id of a path: `1e3`, `+7`, `007` refused.
  actor_id: idParam.label('actor_id'),
  action: action.label('action'),
  target_type: targetType.label('target_type'),
  target_id: targetId.label('target_id'),
  from: instant.label('from'),
  to: instant.label('to'),
  cursor: cursor.label('cursor'),
  limit: limit.label('limit'),
})
  // An id names a target only with its type (and the index is by type, then id).
  .with('target_id', 'target_type')
  .messages({ 'object.with': auditQueryMessages.targetIdAlone });

export interface AuditScreenQuery {
  actor_id?: number;
  action?: string;
  target_type?: string;
  target_id?: string;
  /** Days of the site's time zone (a date field): `from` and `to` both included. */
  from?: string;
  to?: string;
  cursor?: string;
}

const day = Joi.string()
  .pattern(/^\d{4}-\d{2}-\d{2}$/)
  .custom((value: string, helpers) => (Number.isNaN(Date.parse(value)) ? helpers.error('date.format') : value))
  .messages({
    'string.pattern.base': auditQueryMessages.day,
    'date.format': auditQueryMessages.day,
  });

export const auditScreenQuery = Joi.object<AuditScreenQuery>({
  actor_id: idParam.empty('').label('Compte (numéro)'),
  action: action.empty('').label('Action'),
  target_type: targetType.empty('').label('Type de cible'),
  target_id: targetId.empty('').label('Cible (numéro)'),
  from: day.empty('').label('Du'),
  to: day.empty('').label('Au'),
  cursor: cursor.empty('').label('Curseur'),
})
  .with('target_id', 'target_type')
  .messages({ 'object.with': auditQueryMessages.targetAlone });
