// GET /admin/pages/:id/revisions: a page's history (number, date in the site's zone,
// author, state), newest first, a page of 50 at a time; GET …/revisions/compare?a=&b=:
// two revisions side by side, field by field and block by block, the differing rows
// marked, each with «Restaurer»; POST …/revisions/:number/restore copies one into the
// draft (the live page changes only when the draft is published).
import Joi from 'joi';
import { frenchDates, type FrenchDates } from '../../lib/dates.js';
import { idParam } from '../../lib/schema-primitives.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { getPage } from '../../models/pages/pages.js';
import { getRevision, listRevisions, restoreRevision, type Revision } from '../../models/pages/revisions.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { pathId, redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { actorOf } from './admin-call.js';
import { mayManagePage } from './page-rights.js';
import { blockValues } from './admin-screens-document.js';
import { reviewStepsOf } from './review-history.js';
import { lifecycleMessages } from '../../models/auth/messages.js';
import { revisionScreenMessages, STATE_LABELS, pageScreenTitles, revisionFieldLabels, VISIBILITIES } from './messages.js';

const PAGE_SIZE = 50;

export const revisionsQuery = Joi.object<{ page: number }>({ page: Joi.number().integer().min(1).max(100_000).default(1) });
export const compareQuery = Joi.object<{ a: number; b: number }>({
  a: Joi.number().integer().min(1).max(2_147_483_647).required(),
  b: Joi.number().integer().min(1).max(2_147_483_647).required(),
});
export const revisionParams = Joi.object<{ id: number; number: number }>({
  id: idParam.required(),
  number: idParam.required(),
});

// GET /admin/pages/:id/revisions?page=
export async function showRevisions(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const id = pathId(call);
  const pageNumber = typeof (call.query as { page?: unknown }).page === 'number' ? (call.query as { page: number }).page : 1;
  const [page, history, reviewSteps] = await Promise.all([
    getPage(call.ctx, id),
    listRevisions(call.ctx, id, { limit: PAGE_SIZE, offset: (pageNumber - 1) * PAGE_SIZE }),
    reviewStepsOf(call.ctx, id),
  ]);
  const items = history.items.map((item, index) => ({
    ...item,
    stateLabel: STATE_LABELS[item.state] ?? item.state,
    authorName: item.author ? item.author.name : lifecycleMessages.deletedAccount,
    previous: history.items[index + 1]?.number ?? (item.number > 1 ? item.number - 1 : undefined),
  }));
  await renderAdmin(
    call,
    'admin/pages/revisions.njk',
    {
      pageTitle: pageScreenTitles.history(page.title),
      page,
      items,
      total: history.total,
      pageNumber,
      previousHref: pageNumber > 1 ? `/admin/pages/${id}/revisions?page=${pageNumber - 1}` : undefined,
      nextHref: pageNumber * PAGE_SIZE < history.total ? `/admin/pages/${id}/revisions?page=${pageNumber + 1}` : undefined,
      canManage: await mayManagePage(call, id),
      ...reviewSteps,
      ...locals,
    },
    status,
  );
}

/** A form value as text (strings, numbers, booleans; anything else is left out). */
function formText(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'oui' : 'non';
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/** One revision's content as rows of label → text, fields first, then one row per block. */
function rowsOf(catalog: PageCatalog, revision: Revision, dates: FrenchDates): Map<string, string> {
  const { content } = revision;
  const seo = content.seo ?? {};
  const rows = new Map<string, string>([
    [revisionFieldLabels.title, content.title],
    [revisionFieldLabels.slug, content.slug],
    [revisionFieldLabels.parent, content.parent_id === null ? revisionFieldLabels.noParent : revisionFieldLabels.parentId(content.parent_id)],
    [revisionFieldLabels.template, content.template],
    [revisionFieldLabels.visibility, VISIBILITIES.find((choice) => choice.value === content.visibility)?.label ?? content.visibility],
    [revisionFieldLabels.seoTitle, typeof seo.title === 'string' ? seo.title : ''],
    [revisionFieldLabels.seoDescription, typeof seo.description === 'string' ? seo.description : ''],
    [revisionFieldLabels.noindex, seo.noindex ? revisionFieldLabels.yes : revisionFieldLabels.no],
    [revisionFieldLabels.createdAt, dates.dateTime(new Date(content.created_at))],
  ]);
  (content.blocks ?? []).forEach((block, index) => {
    const type = catalog.blocks.get(block.type);
    const values = blockValues(catalog, block);
    const fields = type?.editor?.fields ?? [];
    const text = fields.length
      ? fields
          .map((field) => `${field.label}\u00a0: ${formText(values[field.name])}`)
          .filter((line) => !line.endsWith(' : '))
          .join('\n')
      : JSON.stringify(block);
    rows.set(`Bloc ${index + 1}`, `${type?.label ?? block.type}${text ? `\n${text}` : ''}`);
  });
  return rows;
}

// GET /admin/pages/:id/revisions/compare?a=&b=
export async function compareRevisions(catalog: PageCatalog, call: Call<{ id: number }, { a: number; b: number }>): Promise<void> {
  const { id } = call.params;
  const [older, newer] = [Math.min(call.query.a, call.query.b), Math.max(call.query.a, call.query.b)];
  const [page, left, right] = await Promise.all([getPage(call.ctx, id), getRevision(call.ctx, id, older), getRevision(call.ctx, id, newer)]);
  const dates = frenchDates(call.ctx.config.timeZone);
  const leftRows = rowsOf(catalog, left, dates);
  const rightRows = rowsOf(catalog, right, dates);
  const labels = [...new Set([...leftRows.keys(), ...rightRows.keys()])];
  const side = (revision: Revision) => ({
    number: revision.number,
    recorded_at: revision.recorded_at,
    stateLabel: STATE_LABELS[revision.state] ?? revision.state,
    authorName: revision.author ? revision.author.name : lifecycleMessages.deletedAccount,
  });
  await renderAdmin(call, 'admin/pages/revision-compare.njk', {
    pageTitle: pageScreenTitles.compare(older, newer, page.title),
    page,
    left: side(left),
    right: side(right),
    rows: labels.map((label) => {
      const a = leftRows.get(label) ?? '';
      const b = rightRows.get(label) ?? '';
      return { label, a, b, changed: a !== b };
    }),
    canManage: await mayManagePage(call, page.id),
  });
}

// POST /admin/pages/:id/revisions/:number/restore
export async function restore(call: Call<{ id: number; number: number }>): Promise<void> {
  const { id, number } = call.params;
  await restoreRevision(call.ctx, id, number, actorOf(call));
  redirectWithFlash(call.req, call.res, `/admin/pages/${id}`, revisionScreenMessages.restored(number));
}
