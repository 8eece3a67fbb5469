// Rows of the review workflow (issue 26, item 5), on the API and on the screens. Reading
// a review needs pages.view; submitting, writing the page's drafts (pages.manage, or
// pages.manage_own on one's own page); approving and sending back, pages.review.
import * as api from '../../controllers/pages/reviews.js';
import * as screens from '../../controllers/pages/admin-screens-review.js';
import { pageParams } from '../../controllers/pages/admin-call.js';
import { MANAGE_PAGE } from '../../controllers/pages/page-rights.js';
import { approveBody, rejectBody, submitBody, submitForm } from '../../controllers/pages/review-schemas.js';
import { idParams } from '../../lib/schema-primitives.js';
import { catalogFor, type PageCatalog } from '../../models/pages/catalog.js';
import { route, type AnyRoute } from '../define.js';

const VIEW = { permission: 'pages.view' } as const;
const REVIEW = { permission: 'pages.review' } as const;

export function reviewApiRoutes(catalog: PageCatalog): AnyRoute[] {
  return [
    route({ method: 'get', path: '/admin/pages/:id/review', access: VIEW, params: idParams, handler: api.showReview }),
    route({ method: 'post', path: '/admin/pages/:id/review', access: MANAGE_PAGE, params: idParams, body: submitBody, handler: api.submitReview }),
    route({
      method: 'post',
      path: '/admin/pages/:id/review/approve',
      access: REVIEW,
      params: idParams,
      body: approveBody,
      handler: async (call) => api.approveReviewAnswer(await catalogFor(call.ctx, catalog), call),
    }),
    route({ method: 'post', path: '/admin/pages/:id/review/reject', access: REVIEW, params: idParams, body: rejectBody, handler: api.rejectReviewAnswer }),
  ];
}

export function reviewAdminRoutes(catalog: PageCatalog): AnyRoute[] {
  return [
    route({ method: 'get', path: '/pages/:id/review', access: VIEW, params: pageParams, handler: (call) => screens.showReviewScreen(call) }),
    route({
      method: 'post',
      path: '/pages/:id/review',
      access: MANAGE_PAGE,
      params: pageParams,
      body: submitForm,
      form: { name: 'submit', rerender: screens.showReviewScreen },
      handler: screens.submitFromScreen,
    }),
    route({
      method: 'post',
      path: '/pages/:id/review/approve',
      access: REVIEW,
      params: pageParams,
      body: approveBody,
      form: { name: 'approve', rerender: screens.showReviewScreen },
      handler: async (call) => screens.approveFromScreen(await catalogFor(call.ctx, catalog), call),
    }),
    route({
      method: 'post',
      path: '/pages/:id/review/reject',
      access: REVIEW,
      params: pageParams,
      body: rejectBody,
      form: { name: 'reject', rerender: screens.showReviewScreen },
      handler: screens.rejectFromScreen,
    }),
  ];
}
