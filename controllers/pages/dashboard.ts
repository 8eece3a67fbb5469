// What the pages module shows on the dashboard of /admin (declared by its register()
// call): its counts, its first steps, its panel and the public site's links.
import type { Dashboard, NextStep } from '../../lib/modules.js';
import { pageCounts, type PageCounts } from '../../models/pages/dashboard.js';

export const PAGES_DASHBOARD: Dashboard<PageCounts> = {
  counts: pageCounts,
  steps(can, counts) {
    const steps: NextStep[] = [];
    if (can('pages.manage')) {
      const done = counts.total > 0;
      steps.push({
        label: 'Créer une première page',
        href: '/admin/pages/new',
        done,
        note: done ? 'Fait\u00a0: le site a des pages.' : 'Le site n’a encore aucune page.',
      });
    }
    const online = counts.online > 0;
    steps.push({
      label: 'Voir le site',
      href: '/',
      done: online,
      note: online ? 'Fait\u00a0: des pages sont en ligne.' : 'Aucune page n’est encore en ligne.',
    });
    return steps;
  },
  panel: { view: 'admin/pages/_dashboard.njk', permission: 'pages.view' },
  links: [
    { href: '/', label: 'Page d’accueil du site' },
    { href: '/sitemap.xml', label: 'Plan du site (sitemap.xml)' },
  ],
};
