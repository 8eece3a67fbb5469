// What the review workflow adds to /admin (issue 26, item 5), through the pages
// module's register() call: the panel «À relire» for reviewers (the pages waiting, the
// oldest submission first) and the labels of its audit actions.
import { linkById, type AuditAction, type Dashboard } from '../../lib/modules.js';
import { reviewQueue, type QueueItem } from '../../models/pages/reviews.js';

const QUEUE_SHOWN = 10;

export const REVIEW_DASHBOARD: Dashboard<{ items: QueueItem[]; total: number }> = {
  // One statement, whatever the number of pages in review (the panel shows the first ten).
  counts: (ctx) => reviewQueue(ctx, QUEUE_SHOWN),
  panel: { view: 'admin/pages/_review-dashboard.njk', permission: 'pages.review' },
};

const pageLink = linkById('/admin/pages');

export const REVIEW_AUDIT_ACTIONS: Record<string, AuditAction> = {
  'page.review_submitted': { label: 'Page soumise à la relecture', target: pageLink },
  'page.review_resubmitted': { label: 'Page soumise de nouveau à la relecture', target: pageLink },
  'page.review_approved': { label: 'Relecture approuvée', target: pageLink },
  'page.review_rejected': { label: 'Page renvoyée après relecture', target: pageLink },
};
