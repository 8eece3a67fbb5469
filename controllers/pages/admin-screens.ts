// The pages screens of /admin (pages.view / pages.manage): the create form (with the
// parent picker, admin-parent-picker.ts), duplicate and delete, and what the editor
// (admin-screens-editor.ts) shares with them; the tree is admin-screens-tree.ts.
// Writes call the pages models, as the JSON routes do.
import Joi from 'joi';
import { id, idParam, text } from '../../lib/schema-primitives.js';
import { singleLine } from '../../lib/validation.js';
import { countDescendants } from '../../models/pages/admin-tree.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { pageMessages } from '../../models/pages/messages.js';
import { createPage, deletePage, duplicatePage, getPage, type Visibility } from '../../models/pages/pages.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { pathId, redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { actorOf } from './admin-call.js';
import { assertMayDeleteSubtree, mayPublishPage } from './page-rights.js';
import { chosenParentId, parentPicker, parentSearchField } from './admin-parent-picker.js';
import { treeHref, type TreeOptions } from './admin-screens-tree.js';
import { pageScreenMessages, VISIBILITIES, pageScreenTitles } from './messages.js';

export interface PageFormInput {
  title: string;
  slug: string;
  parent_id: number | '';
  template: string;
  visibility: Visibility;
  seo_title: string;
  seo_description: string;
  seo_image: string;
  seo_noindex?: string;
  created_at: string;
}

export const pageForm = Joi.object<PageFormInput>({
  title: singleLine(text().trim().max(300)).allow('').required().label('Titre'),
  slug: text().trim().max(200).allow('').default('').label('Adresse'),
  parent_id: Joi.alternatives(id, text().valid('')).default('').label('Page parente'),
  template: text().max(64).default('default').label('Modèle'),
  visibility: text().valid('public', 'private').default('public').label('Visibilité'),
  seo_title: text().trim().max(300).allow('').default('').label('Titre pour les moteurs de recherche'),
  seo_description: text().trim().max(1000).allow('').default('').label('Description pour les moteurs de recherche'),
  // Set through the API only; the editor carries it along so a save keeps it.
  seo_image: text().trim().max(2000).allow('').default(''),
  seo_noindex: text().max(10).allow(''),
  created_at: text().trim().max(40).allow('').default('').label('Date de création'),
});

export const newPageQuery = Joi.object<{ parent?: number | ''; parent_q?: string }>({
  parent: Joi.alternatives(idParam, text().valid('')),
  parent_q: parentSearchField,
});
export const deleteForm = Joi.object<{ cascade?: string }>({ cascade: text().max(10).allow('') });

export function templateOptions(catalog: PageCatalog) {
  return catalog.templates.list().map((template) => ({ value: template.name, label: template.label }));
}

/** The types the editor can add: those with an editor. */
export function blockTypeOptions(catalog: PageCatalog) {
  return catalog.blocks
    .list()
    .filter((type) => type.editor)
    .map((type) => ({ value: type.type, label: type.label }));
}

export function seoFrom(input: PageFormInput): Record<string, unknown> {
  return {
    title: input.seo_title,
    description: input.seo_description,
    ...(input.seo_image ? { image: input.seo_image } : {}),
    noindex: Boolean(input.seo_noindex),
  };
}

// GET /admin/pages/new?parent=&parent_q=
export async function showNewPage(catalog: PageCatalog, options: TreeOptions, call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const requested: unknown = (call.query as { parent?: unknown }).parent;
  const parent = typeof requested === 'number' ? String(requested) : '';
  const values = { parent_id: parent, template: 'default', visibility: 'public', ...(locals.values ?? {}) };
  const picker = await parentPicker(options, {
    call,
    action: '/admin/pages/new',
    keep: parent ? [{ name: 'parent', value: parent }] : [],
    chosen: chosenParentId(values.parent_id),
    exclude: null,
  });
  await renderAdmin(
    call,
    'admin/pages/new.njk',
    {
      pageTitle: pageScreenTitles.newPage,
      picker,
      templates: templateOptions(catalog),
      visibilities: VISIBILITIES,
      ...locals,
      values,
    },
    status,
  );
}

// POST /admin/pages
export async function saveNewPage(catalog: PageCatalog, call: Call<Record<string, never>, Record<string, never>, PageFormInput>): Promise<void> {
  const input = call.body;
  const page = await createPage(
    call.ctx,
    {
      title: input.title,
      slug: input.slug || undefined,
      parent_id: input.parent_id === '' ? null : input.parent_id,
      template: input.template,
      visibility: input.visibility,
      seo: seoFrom(input),
    },
    actorOf(call),
    catalog,
    // Off the site until «Publier», as in Ghost and WordPress: an empty page never goes live.
    { publish: false },
  );
  redirectWithFlash(call.req, call.res, `/admin/pages/${page.id}`, pageScreenMessages.created);
}

// POST /admin/pages/:id/duplicate
export async function duplicate(call: Call<{ id: number }>): Promise<void> {
  const copy = await duplicatePage(call.ctx, call.params.id, actorOf(call), { publish: await mayPublishPage(call, null) });
  redirectWithFlash(call.req, call.res, `/admin/pages/${copy.id}`, pageScreenMessages.duplicated);
}

// GET /admin/pages/:id/delete — confirmation, with the children rule spelled out.
export async function confirmDeletePage(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const id = pathId(call);
  const [page, descendants] = await Promise.all([getPage(call.ctx, id), countDescendants(call.ctx, id)]);
  const mapped = locals.error === pageMessages.hasChildren;
  const error = mapped ? pageScreenMessages.hasChildren : locals.error;
  // The summary's title is the refusal's message: this page words it for its checkbox.
  const summary = locals.errorSummary as { title: string } | undefined;
  const errorSummary = mapped && summary ? { ...summary, title: error } : summary;
  await renderAdmin(
    call,
    'admin/pages/delete.njk',
    { pageTitle: pageScreenTitles.deletePage(page.title), page, descendants, ...locals, error, errorSummary },
    status,
  );
}

// POST /admin/pages/:id/delete {cascade?}
export async function removePage(call: Call<{ id: number }, Record<string, never>, { cascade?: string }>): Promise<void> {
  const cascade = call.body.cascade === 'on' || call.body.cascade === 'true';
  await assertMayDeleteSubtree(call, call.params.id, cascade);
  const { parent_id: parentId } = await getPage(call.ctx, call.params.id);
  const count = await deletePage(call.ctx, call.params.id, { cascade, actor: actorOf(call) });
  // Back to the tree where the page was.
  redirectWithFlash(call.req, call.res, treeHref(parentId, 1, parentId ?? undefined), pageScreenMessages.deleted(count));
}
