// What the core shows on the dashboard of /admin, declared by the core module like any
// module's: the accounts' counts, the invitation step, the accounts' panel.
import type { Dashboard } from '../../lib/modules.js';
import { accountCounts, type AccountCounts } from '../../models/dashboard.js';

export const CORE_DASHBOARD: Dashboard<AccountCounts> = {
  counts: accountCounts,
  steps(can, counts) {
    if (!can('users.manage')) return [];
    const done = counts.accounts > 1 || counts.invitations > 0;
    return [
      {
        label: 'Inviter une personne',
        href: '/admin/users/new',
        done,
        note: done ? 'Fait\u00a0: le site a plusieurs comptes.' : 'Seul ce compte existe pour l’instant.',
      },
    ];
  },
  panel: { view: 'admin/_dashboard-accounts.njk', permission: 'users.view' },
};
