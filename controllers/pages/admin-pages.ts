// Admin JSON routes of the pages module (SPEC B2), under /app/api/admin/pages.
import type { Request, Response } from 'express';
import { createPage, deletePage, duplicatePage, getPage, listPages, updatePage } from '../../models/pages/pages.js';
import { listPageTemplates } from '../../models/pages/templates.js';

function actor(req: Request): number | null {
  return req.user?.id ?? null;
}

// GET /app/api/admin/pages?visibility=&parent=&limit=&offset=
export async function listAdminPages(_req: Request, res: Response): Promise<void> {
  const { visibility, parent, limit, offset } = res.locals.query;
  const parentId = parent === undefined ? undefined : parent === 'root' ? null : Number(parent);
  const { items, total } = await listPages({ visibility, parentId, limit, offset });
  res.json({ items, total, limit, offset });
}

// POST /app/api/admin/pages
export async function createAdminPage(req: Request, res: Response): Promise<void> {
  const page = await createPage(req.body, actor(req));
  res.status(201).json(page);
}

// GET /app/api/admin/pages/templates
export function listAdminTemplates(_req: Request, res: Response): void {
  res.json({ items: listPageTemplates() });
}

// GET /app/api/admin/pages/:id
export async function showAdminPage(req: Request, res: Response): Promise<void> {
  res.json(await getPage(Number(req.params.id)));
}

// PUT /app/api/admin/pages/:id
export async function updateAdminPage(req: Request, res: Response): Promise<void> {
  res.json(await updatePage(Number(req.params.id), req.body, actor(req)));
}

// POST /app/api/admin/pages/:id/duplicate
export async function duplicateAdminPage(req: Request, res: Response): Promise<void> {
  res.status(201).json(await duplicatePage(Number(req.params.id), actor(req)));
}

// DELETE /app/api/admin/pages/:id?cascade=true
export async function deleteAdminPage(req: Request, res: Response): Promise<void> {
  await deletePage(Number(req.params.id), { cascade: res.locals.query.cascade });
  res.status(204).end();
}
