// Audit actions of the grants on sections (declared by routes/pages/index.ts beside the module's others).
import { linkById, type AuditAction } from '../../lib/modules.js';

const grantsLink = (id: string) => {
  const page = linkById('/admin/pages')(id);
  return page && `${page}/permissions`;
};

export const GRANT_AUDIT_ACTIONS: Record<string, AuditAction> = {
  'page.grant_added': { label: 'Permissions données sur une rubrique', target: grantsLink },
  'page.grant_removed': { label: 'Permissions retirées d’une rubrique', target: grantsLink },
};
