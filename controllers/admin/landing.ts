// GET /admin: the dashboard of the administration (the guard has run). While the site
// is new it greets with the next steps (a done step shows as done); then the site's
// counts, the latest changes the viewer may see, and links to the site. Two statements
// after the session, whatever the size of the site.
import { frenchDates } from '../../lib/dates.js';
import { hasPermission } from '../../middleware/require-auth.js';
import { recentChanges, siteCounts, type SiteCounts } from '../../models/dashboard.js';
import type { Call } from '../../routes/define.js';
import { actionLabel } from '../audit/labels.js';
import { renderAdmin } from './shell.js';

const RECENT_CHANGES = 8;

// Which permission shows the changes of each audit target type.
const TARGET_PERMISSIONS: Record<string, string> = {
  page: 'pages.view',
  media: 'pages.view',
  redirect: 'pages.view',
  user: 'users.view',
  role: 'roles.view',
};

interface NextStep {
  label: string;
  href: string;
  done: boolean;
  /** What «done» means, or what is still missing. */
  note: string;
}

/** The first steps the viewer may take, each marked done from the counts. */
function nextSteps(counts: SiteCounts, can: (permission: string) => boolean): NextStep[] {
  const steps: NextStep[] = [];
  if (can('pages.manage')) {
    const done = counts.pages.total > 0;
    steps.push({
      label: 'Créer une première page',
      href: '/admin/pages/new',
      done,
      note: done ? 'Fait\u00a0: le site a des pages.' : 'Le site n’a encore aucune page.',
    });
  }
  if (can('users.manage')) {
    const done = counts.accounts > 1 || counts.invitations > 0;
    steps.push({
      label: 'Inviter une personne',
      href: '/admin/users/new',
      done,
      note: done ? 'Fait\u00a0: le site a plusieurs comptes.' : 'Seul ce compte existe pour l’instant.',
    });
  }
  const online = counts.pages.online > 0;
  steps.push({
    label: 'Voir le site',
    href: '/',
    done: online,
    note: online ? 'Fait\u00a0: des pages sont en ligne.' : 'Aucune page n’est encore en ligne.',
  });
  return steps;
}

export async function showAdminLanding(call: Call): Promise<void> {
  const { ctx, req } = call;
  const can = (permission: string) => hasPermission(req, permission);
  const visibleTypes = can('audit.view') ? Object.keys(TARGET_PERMISSIONS) : Object.keys(TARGET_PERMISSIONS).filter((type) => can(TARGET_PERMISSIONS[type]));
  const [counts, changes] = await Promise.all([siteCounts(ctx), recentChanges(ctx, visibleTypes, RECENT_CHANGES)]);
  const steps = nextSteps(counts, can);
  const dates = frenchDates(ctx.config.timeZone);
  await renderAdmin(call, 'admin/landing.njk', {
    pageTitle: 'Administration',
    steps,
    // The greeting stays until every step is done.
    showSteps: steps.some((step) => !step.done),
    counts,
    show: { users: can('users.view'), pages: can('pages.view'), journal: can('audit.view') },
    changes: changes.map((change) => ({
      at: dates.dateTime(change.at),
      who: change.actorName,
      what: actionLabel(change.action),
      label: change.targetLabel,
      // A deleted target has nothing left to open.
      href: change.action.endsWith('.deleted') ? undefined : hrefOf(change.targetType, change.targetId, can),
    })),
  });
}

/** Where a change's target is shown, when the viewer may open it. */
function hrefOf(type: string, id: string | null, can: (permission: string) => boolean): string | undefined {
  if (!id || !/^\d+$/.test(id)) return undefined;
  if (type === 'page' && can('pages.view')) return `/admin/pages/${id}`;
  if (type === 'user' && can('users.view')) return `/admin/users/${id}`;
  if (type === 'role' && can('roles.view')) return `/admin/roles/${id}`;
  return undefined;
}
