// Redirects of old page addresses, for the administration: the JSON routes under
// /app/api/admin/redirects and the screen /admin/redirects (list with a filter, an add
// form, deletion confirmed in a <details>), both calling models/pages/redirects.ts.
// pages.view reads, pages.manage writes (the route rows, routes/pages/redirects.ts).
import Joi from 'joi';
import { id, idParam, pagination, text } from '../../lib/schema-primitives.js';
import { createRedirect, deleteRedirect, listRedirects, pageIdFromForm, type RedirectInput } from '../../models/pages/redirects.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { actorOf } from './admin-call.js';
import { redirectScreenMessages, pageScreenTitles } from './messages.js';

const REDIRECTS_PAGE_SIZE = 50;

export interface RedirectListQuery {
  path?: string;
  limit: number;
  offset: number;
}

export const redirectListQuery = Joi.object<RedirectListQuery>({ path: text().allow('').max(2000), ...pagination(200, 50) });
export const redirectBody = Joi.object<RedirectInput>({ from: text().max(7000).required(), page_id: id.required() });
export const redirectParams = Joi.object<{ id: number }>({ id: idParam.required() });

// GET /app/api/admin/redirects?path=&limit=&offset=
export async function listRedirectItems(call: Call<Record<string, never>, RedirectListQuery>): Promise<void> {
  const { path, limit, offset } = call.query;
  const { items, total } = await listRedirects(call.ctx, { path, limit, offset });
  call.res.json({ items, total, limit, offset });
}

// POST /app/api/admin/redirects {from, page_id}
export async function addRedirect(call: Call<Record<string, never>, Record<string, never>, RedirectInput>): Promise<void> {
  call.res.status(201).json(await createRedirect(call.ctx, call.body, actorOf(call)));
}

// DELETE /app/api/admin/redirects/:id
export async function removeRedirect(call: Call<{ id: number }>): Promise<void> {
  await deleteRedirect(call.ctx, call.params.id, actorOf(call));
  call.res.status(204).end();
}

// ---------------------------------------------------------------- the screen

export const redirectScreenQuery = Joi.object<{ path?: string; page: number }>({
  path: text().allow('').max(2000),
  page: Joi.number().integer().min(1).max(100_000).default(1),
});

/** The add form: the page by its current address, or by its number (its editor's address, /admin/pages/<id>). */
export const redirectForm = Joi.object<{ from: string; page_id: string }>({
  from: text().trim().max(7000).required().label('Ancienne adresse'),
  page_id: text().trim().max(7000).required().label('Page cible'),
});

// GET /admin/redirects?path=&page=
export async function showRedirects(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  // A re-render (refused form) receives the raw query: it shows the first page, unfiltered.
  const query = call.query as { path?: unknown; page?: unknown };
  const page = typeof query.page === 'number' ? query.page : 1;
  const filter = typeof query.path === 'string' ? query.path : '';
  const { items, total } = await listRedirects(call.ctx, { path: filter, limit: REDIRECTS_PAGE_SIZE, offset: (page - 1) * REDIRECTS_PAGE_SIZE });
  const pages = Math.max(1, Math.ceil(total / REDIRECTS_PAGE_SIZE));
  const canManage = (call.req.user?.permissions ?? []).includes('pages.manage');
  await renderAdmin(
    call,
    'admin/pages/redirects.njk',
    { pageTitle: pageScreenTitles.redirects, items, total, page, pages, filter, canManage, ...locals },
    status,
  );
}

// POST /admin/redirects {from, page_id: a number or the page's current address}
export async function saveRedirectForm(call: Call<Record<string, never>, Record<string, never>, { from: string; page_id: string }>): Promise<void> {
  const pageId = await pageIdFromForm(call.ctx, call.body.page_id);
  await createRedirect(call.ctx, { from: call.body.from, page_id: pageId }, actorOf(call));
  redirectWithFlash(call.req, call.res, '/admin/redirects', redirectScreenMessages.created);
}

// POST /admin/redirects/:id/delete (confirmed in a <details>)
export async function deleteRedirectForm(call: Call<{ id: number }>): Promise<void> {
  await deleteRedirect(call.ctx, call.params.id, actorOf(call));
  redirectWithFlash(call.req, call.res, '/admin/redirects', redirectScreenMessages.deleted);
}
