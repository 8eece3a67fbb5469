// GET /admin: the dashboard of the administration (the guard has run). While the site
// is new it greets with the next steps (a done step shows as done); then each module's
// panel with its counts, the latest changes the viewer may see, and links to the site.
// Every module's counts and the latest changes are read together: one statement each
// after the session, whatever the size of the site. What is shown comes from the
// modules' register() calls (dashboard, auditActions, auditTargets).
import { frenchDates } from '../../lib/dates.js';
import { hasPermission } from '../../middleware/require-auth.js';
import { recentChanges } from '../../models/dashboard.js';
import type { Call } from '../../routes/define.js';
import { actionLabel, targetHref } from '../audit/labels.js';
import { renderAdmin } from './shell.js';

const RECENT_CHANGES = 8;

export async function showAdminLanding(call: Call): Promise<void> {
  const { ctx, req } = call;
  const { site } = ctx;
  const can = (permission: string) => hasPermission(req, permission);
  const types = [...site.auditTargets.keys()];
  const visibleTypes = can('audit.view') ? types : types.filter((type) => can(site.auditTargets.get(type)!.permission));
  const [counts, changes] = await Promise.all([
    Promise.all(site.dashboards.map((dashboard) => dashboard.counts(ctx))),
    recentChanges(ctx, visibleTypes, RECENT_CHANGES),
  ]);
  const steps = site.dashboards.flatMap((dashboard, index) => dashboard.steps?.(can, counts[index]) ?? []);
  const dates = frenchDates(ctx.config.timeZone);
  await renderAdmin(call, 'admin/landing.njk', {
    pageTitle: 'Administration',
    steps,
    // The greeting stays until every step is done.
    showSteps: steps.some((step) => !step.done),
    panels: site.dashboards.flatMap((dashboard, index) =>
      dashboard.panel && can(dashboard.panel.permission) ? [{ view: dashboard.panel.view, counts: counts[index], can }] : [],
    ),
    links: site.dashboards.flatMap((dashboard) => dashboard.links ?? []),
    show: { journal: can('audit.view') },
    changes: changes.map((change) => ({
      at: dates.dateTime(change.at),
      who: change.actorName,
      what: actionLabel(site, change.action),
      label: change.targetLabel,
      href: targetHref(site, change.action, change.targetType, change.targetId, can),
    })),
  });
}
