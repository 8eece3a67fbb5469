// The pages screens of /admin (pages.view / pages.manage): the tree with a visibility
// filter, the create and edit form (with the block editor, admin-screens-blocks.ts),
// duplicate and delete. Writes call models/pages/pages.ts, as the JSON routes do.
import type { Request, Response } from 'express';
import Joi from 'joi';
import { hasPermission } from '../../middleware/require-auth.js';
import { validateValue } from '../../middleware/validate.js';
import { listMedia } from '../../models/pages/media.js';
import { pageMessages } from '../../models/pages/messages.js';
import { createPage, deletePage, duplicatePage, getPage, updatePage, type PagePatch, type Visibility } from '../../models/pages/pages.js';
import { slugify } from '../../models/pages/slugs.js';
import { listPageTemplates } from '../../models/pages/templates.js';
import { redirectWithFlash, renderAdmin, type FormLocals } from '../admin/shell.js';
import { BLOCK_FORMS, blockFormFor, blockValues } from './admin-screens-blocks.js';
import { countDescendants, filterTree, loadPageTree, subtreeIds, type PageTree } from './admin-screens-tree.js';

export const pageScreenMessages = {
  created: 'La page est créée.',
  saved: 'La page est enregistrée.',
  duplicated: 'La copie est créée.',
  deleted: (count: number) => (count > 1 ? `La page et ses ${count - 1} sous-page${count > 2 ? 's' : ''} sont supprimées.` : 'La page est supprimée.'),
  hasChildren: 'Cette page a des sous-pages : cochez « Supprimer aussi les sous-pages » pour tout supprimer, ou déplacez-les d’abord.',
} as const;

const VISIBILITIES = [
  { value: 'public', label: 'Publique' },
  { value: 'private', label: 'Privée' },
];

const pageForm = Joi.object({
  title: Joi.string().trim().max(300).allow('').required().label('Titre'),
  slug: Joi.string().trim().max(200).allow('').default('').label('Slug'),
  parent_id: Joi.alternatives(Joi.number().integer().min(1).max(2_147_483_647), Joi.string().valid('')).default('').label('Page parente'),
  template: Joi.string().max(64).default('default').label('Modèle'),
  visibility: Joi.string().valid('public', 'private').default('public').label('Visibilité'),
  seo_title: Joi.string().trim().max(300).allow('').default('').label('Titre pour les moteurs de recherche'),
  seo_description: Joi.string().trim().max(1000).allow('').default('').label('Description pour les moteurs de recherche'),
  seo_noindex: Joi.any(),
  created_at: Joi.string().trim().max(40).allow('').default('').label('Date de création'),
});

interface PageFormInput {
  title: string;
  slug: string;
  parent_id: number | '';
  template: string;
  visibility: Visibility;
  seo_title: string;
  seo_description: string;
  seo_noindex?: unknown;
  created_at: string;
}

function parentOptions(tree: PageTree, exclude: Set<number>) {
  const options = [{ value: '', label: '— Aucune (page racine) —' }];
  for (const node of tree.flat) {
    if (!exclude.has(node.id)) options.push({ value: String(node.id), label: `${'\u00a0\u00a0'.repeat(node.depth * 2)}${node.title} (${node.path})` });
  }
  return options;
}

function templateOptions() {
  return listPageTemplates().map((template) => ({ value: template.name, label: template.label }));
}

function seoFrom(input: PageFormInput, previous: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...previous, title: input.seo_title, description: input.seo_description, noindex: Boolean(input.seo_noindex) };
}

// GET /admin/pages?visibility=public|private
export async function showPageTree(req: Request, res: Response): Promise<void> {
  const { visibility } = validateValue<{ visibility?: Visibility | '' }>(
    Joi.object({ visibility: Joi.string().valid('public', 'private', '') }),
    req.query,
    { allowUnknown: true },
  );
  const tree = await loadPageTree();
  await renderAdmin(req, res, 'admin/pages/tree.njk', {
    pageTitle: 'Pages',
    roots: visibility ? filterTree(tree, visibility) : tree.roots,
    total: tree.flat.length,
    visibility: visibility || '',
    canManage: hasPermission(req, 'pages.manage'),
  });
}

// GET /admin/pages/new?parent=
export async function showNewPage(req: Request, res: Response, locals: FormLocals = {}, status = 200): Promise<void> {
  const tree = await loadPageTree();
  const parent = typeof req.query.parent === 'string' && /^\d{1,10}$/.test(req.query.parent) ? req.query.parent : '';
  await renderAdmin(
    req,
    res,
    'admin/pages/new.njk',
    {
      pageTitle: 'Nouvelle page',
      parents: parentOptions(tree, new Set()),
      templates: templateOptions(),
      visibilities: VISIBILITIES,
      values: { parent_id: parent, template: 'default', visibility: 'public' },
      ...locals,
    },
    status,
  );
}

// POST /admin/pages
export async function saveNewPage(req: Request, res: Response): Promise<void> {
  const input = validateValue<PageFormInput>(pageForm, req.body, { allowUnknown: true });
  const page = await createPage(
    {
      title: input.title,
      slug: input.slug || undefined,
      parent_id: input.parent_id === '' ? null : input.parent_id,
      template: input.template,
      visibility: input.visibility,
      seo: seoFrom(input),
    },
    req.user?.id ?? null,
  );
  redirectWithFlash(req, res, `/admin/pages/${page.id}`, pageScreenMessages.created);
}

// GET /admin/pages/:id — the page's form and its blocks.
export async function showEditPage(req: Request, res: Response, locals: FormLocals = {}, status = 200): Promise<void> {
  const id = Number(req.params.id);
  const [page, tree, media] = await Promise.all([getPage(id), loadPageTree(), listMedia({ limit: 200 })]);
  const node = tree.byId.get(id);
  const failedForm = typeof locals.form === 'string' ? locals.form : '';
  const blocks = (Array.isArray(page.blocks) ? page.blocks : []).map((block, index) => {
    const mine = failedForm === `block-${index}`;
    return {
      index,
      block,
      form: blockFormFor(block.type),
      values: mine ? locals.values : blockValues(block),
      fieldErrors: mine ? locals.fieldErrors : {},
      error: mine ? locals.error : undefined,
    };
  });
  const seo = (page.seo ?? {}) as Record<string, unknown>;
  const pageValues = {
    title: page.title,
    slug: page.slug,
    parent_id: page.parent_id === null ? '' : String(page.parent_id),
    template: page.template,
    visibility: page.visibility,
    seo_title: seo.title ?? '',
    seo_description: seo.description ?? '',
    seo_noindex: seo.noindex ? 'on' : '',
    created_at: new Date(page.created_at).toISOString().slice(0, 16),
  };
  await renderAdmin(
    req,
    res,
    'admin/pages/edit.njk',
    {
      pageTitle: `Page ${page.title}`,
      page,
      path: node?.path ?? `/${page.slug}`,
      derivedSlug: slugify(page.title),
      children: node?.children ?? [],
      parents: parentOptions(tree, subtreeIds(node)),
      templates: templateOptions(),
      visibilities: VISIBILITIES,
      blocks,
      blockTypes: BLOCK_FORMS.map((form) => ({ value: form.type, label: form.label })),
      media: media.items,
      version: new Date(page.updated_at).toISOString(),
      canManage: hasPermission(req, 'pages.manage'),
      ...locals,
      values: failedForm === 'page' ? locals.values : pageValues,
      fieldErrors: failedForm === 'page' ? locals.fieldErrors : {},
    },
    status,
  );
}

// POST /admin/pages/:id — title, slug (empty: derived from the title), parent,
// template, visibility, SEO, created_at (UTC, in the past).
export async function savePage(req: Request, res: Response): Promise<void> {
  const id = Number(req.params.id);
  const input = validateValue<PageFormInput>(pageForm, req.body, { allowUnknown: true });
  const current = await getPage(id);
  const patch: PagePatch = {
    title: input.title,
    slug: input.slug || slugify(input.title),
    parent_id: input.parent_id === '' ? null : input.parent_id,
    template: input.template,
    visibility: input.visibility,
    seo: seoFrom(input, (current.seo ?? {}) as Record<string, unknown>),
  };
  if (input.created_at) patch.created_at = /(Z|[+-]\d{2}:?\d{2})$/.test(input.created_at) ? input.created_at : `${input.created_at}Z`;
  await updatePage(id, patch, req.user?.id ?? null);
  redirectWithFlash(req, res, `/admin/pages/${id}`, pageScreenMessages.saved);
}

// POST /admin/pages/:id/duplicate
export async function duplicate(req: Request, res: Response): Promise<void> {
  const copy = await duplicatePage(Number(req.params.id), req.user?.id ?? null);
  redirectWithFlash(req, res, `/admin/pages/${copy.id}`, pageScreenMessages.duplicated);
}

// GET /admin/pages/:id/delete — confirmation, with the children rule spelled out.
export async function confirmDeletePage(req: Request, res: Response, locals: FormLocals = {}, status = 200): Promise<void> {
  const id = Number(req.params.id);
  const [page, tree] = await Promise.all([getPage(id), loadPageTree()]);
  const error = locals.error === pageMessages.hasChildren ? pageScreenMessages.hasChildren : locals.error;
  await renderAdmin(
    req,
    res,
    'admin/pages/delete.njk',
    { pageTitle: `Supprimer la page ${page.title}`, page, descendants: countDescendants(tree.byId.get(id)), ...locals, error },
    status,
  );
}

// POST /admin/pages/:id/delete {cascade?}
export async function removePage(req: Request, res: Response): Promise<void> {
  const count = await deletePage(Number(req.params.id), { cascade: req.body.cascade === 'on' || req.body.cascade === 'true' });
  redirectWithFlash(req, res, '/admin/pages', pageScreenMessages.deleted(count));
}
