// The pages screens of /admin (pages.view / pages.manage): the create and edit form
// (with the block editor, admin-screens-blocks.ts, and the parent picker,
// admin-parent-picker.ts), duplicate and delete; the tree is admin-screens-tree.ts.
// Writes call models/pages/pages.ts, as the JSON routes do.
import Joi from 'joi';
import { id, idParam, text } from '../../lib/schema-primitives.js';
import { countDescendants, placesOf } from '../../models/pages/admin-tree.js';
import { hasPermission } from '../../middleware/require-auth.js';
import { pageAuthors } from '../../models/pages/authors.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { listMedia } from '../../models/pages/media.js';
import { pageMessages } from '../../models/pages/messages.js';
import { createPage, deletePage, duplicatePage, getPage, updatePage, type PagePatch, type Visibility } from '../../models/pages/pages.js';
import { slugify } from '../../models/pages/slugs.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { pathId, redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { actorOf } from './admin-call.js';
import { blockItems, blockTypeOptions } from './admin-screens-blocks.js';
import { chosenParentId, parentPicker, parentSearchField } from './admin-parent-picker.js';
import { treeHref, type TreeOptions } from './admin-screens-tree.js';

export const pageScreenMessages = {
  created: 'La page est créée.',
  saved: 'La page est enregistrée.',
  duplicated: 'La copie est créée.',
  deleted: (count: number) => (count > 1 ? `La page et ses ${count - 1} sous-page${count > 2 ? 's' : ''} sont supprimées.` : 'La page est supprimée.'),
  hasChildren: 'Cette page a des sous-pages : la case « Supprimer aussi les sous-pages » les supprime avec elle ; sinon, elles doivent être déplacées d’abord.',
} as const;

const VISIBILITIES = [
  { value: 'public', label: 'Publique' },
  { value: 'private', label: 'Privée' },
];

export interface PageFormInput {
  title: string;
  slug: string;
  parent_id: number | '';
  template: string;
  visibility: Visibility;
  seo_title: string;
  seo_description: string;
  seo_noindex?: string;
  created_at: string;
}

export const pageForm = Joi.object<PageFormInput>({
  title: text().trim().max(300).allow('').required().label('Titre'),
  slug: text().trim().max(200).allow('').default('').label('Slug'),
  parent_id: Joi.alternatives(id, text().valid('')).default('').label('Page parente'),
  template: text().max(64).default('default').label('Modèle'),
  visibility: text().valid('public', 'private').default('public').label('Visibilité'),
  seo_title: text().trim().max(300).allow('').default('').label('Titre pour les moteurs de recherche'),
  seo_description: text().trim().max(1000).allow('').default('').label('Description pour les moteurs de recherche'),
  seo_noindex: text().max(10).allow(''),
  created_at: text().trim().max(40).allow('').default('').label('Date de création'),
});

export const newPageQuery = Joi.object<{ parent?: number | ''; parent_q?: string }>({
  parent: Joi.alternatives(idParam, text().valid('')),
  parent_q: parentSearchField,
});
export const editPageQuery = Joi.object<{ parent_q?: string }>({ parent_q: parentSearchField });
export const deleteForm = Joi.object<{ cascade?: string }>({ cascade: text().max(10).allow('') });

function templateOptions(catalog: PageCatalog) {
  return catalog.templates.list().map((template) => ({ value: template.name, label: template.label }));
}

function seoFrom(input: PageFormInput, previous: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...previous, title: input.seo_title, description: input.seo_description, noindex: Boolean(input.seo_noindex) };
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
      pageTitle: 'Nouvelle page',
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
  );
  redirectWithFlash(call.req, call.res, `/admin/pages/${page.id}`, pageScreenMessages.created);
}

// GET /admin/pages/:id?parent_q= — the page's form and its blocks.
export async function showEditPage(catalog: PageCatalog, options: TreeOptions, call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const { ctx } = call;
  const id = pathId(call);
  const [page, places, media, authors] = await Promise.all([getPage(ctx, id), placesOf(ctx, [id]), listMedia(ctx, { limit: 200 }), pageAuthors(ctx, id)]);
  const place = places.get(id);
  const failedForm = typeof locals.form === 'string' ? locals.form : '';
  const seo = page.seo ?? {};
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
  const values = failedForm === 'page' ? (locals.values ?? {}) : pageValues;
  const path = place?.path ?? `/${page.slug}`;
  // The current parent's place is the page's own, one level up: no statement for it.
  const currentParent =
    place && page.parent_id !== null
      ? { id: page.parent_id, title: place.ancestorTitles[place.ancestorTitles.length - 1], path: path.slice(0, path.lastIndexOf('/')) }
      : undefined;
  const picker = await parentPicker(options, {
    call,
    action: `/admin/pages/${id}`,
    chosen: chosenParentId(values.parent_id),
    chosenPlace: currentParent,
    exclude: id,
  });
  // The path down to this page, each step opening the tree there.
  const trail = (place?.ancestors ?? []).map((ancestorId, index) => ({ title: place!.ancestorTitles[index], href: treeHref(ancestorId, 1, ancestorId) }));
  await renderAdmin(
    call,
    'admin/pages/edit.njk',
    {
      pageTitle: `Page ${page.title}`,
      page,
      path,
      trail,
      treeHref: treeHref(id, 1, id),
      derivedSlug: slugify(page.title),
      childCount: place?.child_count ?? 0,
      authors,
      picker,
      templates: templateOptions(catalog),
      visibilities: VISIBILITIES,
      blocks: blockItems(catalog, page.blocks, locals),
      blockTypes: blockTypeOptions(catalog),
      media: media.items,
      version: new Date(page.updated_at).toISOString(),
      canManage: hasPermission(call.req, 'pages.manage'),
      ...locals,
      values,
      fieldErrors: failedForm === 'page' ? locals.fieldErrors : {},
    },
    status,
  );
}

// POST /admin/pages/:id — title, slug (empty: derived from the title), parent,
// template, visibility, SEO, created_at (UTC, in the past).
export async function savePage(catalog: PageCatalog, call: Call<{ id: number }, Record<string, never>, PageFormInput>): Promise<void> {
  const { ctx, body: input } = call;
  const id = call.params.id;
  const current = await getPage(ctx, id);
  const patch: PagePatch = {
    title: input.title,
    slug: input.slug || slugify(input.title),
    parent_id: input.parent_id === '' ? null : input.parent_id,
    template: input.template,
    visibility: input.visibility,
    seo: seoFrom(input, current.seo ?? {}),
  };
  // The form's datetime-local field has no offset: it is UTC, as its label says.
  if (input.created_at) patch.created_at = input.created_at;
  await updatePage(ctx, id, patch, actorOf(call), catalog);
  redirectWithFlash(call.req, call.res, `/admin/pages/${id}`, pageScreenMessages.saved);
}

// POST /admin/pages/:id/duplicate
export async function duplicate(call: Call<{ id: number }>): Promise<void> {
  const copy = await duplicatePage(call.ctx, call.params.id, actorOf(call));
  redirectWithFlash(call.req, call.res, `/admin/pages/${copy.id}`, pageScreenMessages.duplicated);
}

// GET /admin/pages/:id/delete — confirmation, with the children rule spelled out.
export async function confirmDeletePage(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const id = pathId(call);
  const [page, descendants] = await Promise.all([getPage(call.ctx, id), countDescendants(call.ctx, id)]);
  const error = locals.error === pageMessages.hasChildren ? pageScreenMessages.hasChildren : locals.error;
  await renderAdmin(call, 'admin/pages/delete.njk', { pageTitle: `Supprimer la page ${page.title}`, page, descendants, ...locals, error }, status);
}

// POST /admin/pages/:id/delete {cascade?}
export async function removePage(call: Call<{ id: number }, Record<string, never>, { cascade?: string }>): Promise<void> {
  const cascade = call.body.cascade === 'on' || call.body.cascade === 'true';
  const { parent_id: parentId } = await getPage(call.ctx, call.params.id);
  const count = await deletePage(call.ctx, call.params.id, { cascade, actor: actorOf(call) });
  // Back to the tree where the page was.
  redirectWithFlash(call.req, call.res, treeHref(parentId, 1, parentId ?? undefined), pageScreenMessages.deleted(count));
}
