// GET /admin/pages/:id and POST /admin/pages/:id: the one-document page editor. One
// form holds the page's fields and every block (admin-screens-document.ts reads it);
// its buttons (save, publish, schedule, add, insert, move, remove, parent search) all
// submit the whole document, which is saved as the page's draft before the action's
// own step. The form carries the revision it was rendered from (`if_revision`): a
// stale one shows the conflict screen, the submitted content beside the current one.
import Joi from 'joi';
import { frenchDates } from '../../lib/dates.js';
import { ValidationError } from '../../lib/errors.js';
import { megabytes } from '../../lib/messages.js';
import { text } from '../../lib/schema-primitives.js';
import { placesOf } from '../../models/pages/admin-tree.js';
import { pageAuthors } from '../../models/pages/authors.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { cancelSchedule, discardDraft, previewDraftMerge, publishDraft, saveDraft, schedulePublication } from '../../models/pages/drafts.js';
import { listMedia } from '../../models/pages/media.js';
import { createPreviewLink, revokePreviewLinks } from '../../models/pages/preview-links.js';
import { getPage, type PagePatch } from '../../models/pages/pages.js';
import { currentContent, type PageContent } from '../../models/pages/revision-store.js';
import { slugify } from '../../models/pages/slugs.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import type { ErrorSummary } from '../../routes/error-summary.js';
import { pathId, redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { accessPanel } from './admin-screens-access.js';
import { actorOf } from './admin-call.js';
import { assertMayPublish, mayManagePage, mayPublishPage } from './page-rights.js';
import { applyAction, documentBlock, readAction, readDocument, storedDocument, type DocumentBlock, type EditorDocument } from './admin-screens-document.js';
import { blockTypeOptions, seoFrom, templateOptions, type PageFormInput } from './admin-screens.js';
import { applyChoices, conflictView } from './admin-screens-conflict.js';
import { addressOf, autosaved, openedSections, previewed, savedLine } from './admin-screens-editor-layout.js';
import { othersOnPage } from './presence.js';
import { editorImages, refusedFiles, storeFormImages, uploadedKeys } from './admin-screens-editor-images.js';
import { recordPresence } from '../../models/pages/presence.js';
import { chosenParentId, parentPicker, parentSearchField } from './admin-parent-picker.js';
import { treeHref, type TreeOptions } from './admin-screens-tree.js';
import { instantToZoned, zonedToInstant } from './admin-screens-zone.js';
import { revisionMessages } from '../../models/pages/messages.js';
import { pageScreenMessages, editorMessages, VISIBILITIES, pageScreenTitles } from './messages.js';
import { latestReview } from '../../models/pages/reviews.js';
import { submitPageForReview } from '../../services/pages-review.js';
import { wishedTime } from './admin-screens-review.js';
import { reviewScreenMessages } from './review-screen-messages.js';
import { reviewMessages } from '../../models/pages/review-messages.js';

/** The key of the blocks a script clones; it gives each copy a key of its own. */
const NEW_KEY = 'zzkeyzz';

const BLOCK_DONE = ['added', 'moved', 'removed'] as const;
type BlockDone = (typeof BLOCK_DONE)[number];

export interface EditorQuery {
  parent_q?: string;
  done?: BlockDone;
  at?: number;
}

export const editorQuery = Joi.object<EditorQuery>({
  parent_q: parentSearchField,
  done: text().valid(...BLOCK_DONE),
  at: Joi.number().integer().min(0).max(1000),
});

export const documentForm = Joi.object<{ if_revision: number }>({
  if_revision: Joi.number().integer().min(0).max(2_147_483_647).required().label('Révision'),
});

/** The page form's values for a content (a draft or the live page). */
function contentValues(content: PageContent, timeZone: string): Record<string, unknown> {
  const seo = content.seo ?? {};
  return {
    title: content.title,
    slug: content.slug,
    parent_id: content.parent_id === null ? '' : String(content.parent_id),
    template: content.template,
    visibility: content.visibility,
    seo_title: seo.title ?? '',
    seo_description: seo.description ?? '',
    seo_image: seo.image ?? '',
    seo_noindex: seo.noindex ? 'on' : '',
    created_at: instantToZoned(content.created_at, timeZone),
  };
}

/** A refusal's messages placed on the document: page fields by name, blocks by key or position. */
function placeErrors(document: EditorDocument, fieldErrors: Record<string, string> = {}): Record<string, string> {
  const pageErrors: Record<string, string> = {};
  for (const [field, message] of Object.entries(fieldErrors)) {
    if (field === 'at') {
      pageErrors.schedule_at = message;
      continue;
    }
    const byKey = /^b\.([a-z0-9]+)\.(.+)$/.exec(field);
    const byIndex = /^blocks\.(\d+)\.(.+)$/.exec(field);
    const block: DocumentBlock | undefined = byKey
      ? document.blocks.find((item) => item.key === byKey[1])
      : byIndex
        ? document.blocks[Number(byIndex[1])]
        : undefined;
    if (block) block.errors[(byKey ?? byIndex)![2]] ??= message;
    else pageErrors[field] = message;
  }
  return pageErrors;
}

interface EditorView {
  document: EditorDocument;
  fieldErrors: Record<string, string>;
  ifRevision: number | string;
}

/** The editor's screen (also the re-render after a refusal, which passes the submitted document). */
export async function showEditor(catalog: PageCatalog, options: TreeOptions, call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const { ctx } = call;
  const id = pathId(call);
  const [canManage, canPublish] = await Promise.all([mayManagePage(call, id), mayPublishPage(call, id)]);
  // Opening the editor counts as a heartbeat: without JavaScript, others still see who
  // opened or saved the page within the last minute.
  if (canManage && call.origin.userId !== null) await recordPresence(ctx, id, call.origin.userId);
  const [page, content, places, media, authors, presence, review] = await Promise.all([
    getPage(ctx, id),
    currentContent(ctx, id),
    placesOf(ctx, [id]),
    listMedia(ctx, { limit: 200 }),
    pageAuthors(ctx, id),
    othersOnPage(call, id),
    latestReview(ctx, id),
  ]);
  const given = locals.editor as EditorView | undefined;
  const view: EditorView = given ?? {
    document: storedDocument(catalog, contentValues(content, ctx.config.timeZone), content.blocks),
    fieldErrors: {},
    ifRevision: content.revision,
  };
  const chosenMedia = await editorImages(ctx, view.document, !given);
  const place = places.get(id);
  const path = place?.path ?? `/${page.slug}`;
  const values = view.document.values;
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
  const query = call.query as EditorQuery;
  const done = typeof query.done === 'string' && BLOCK_DONE.includes(query.done) ? query.done : undefined;
  const address = addressOf(ctx.config.baseUrl, picker);
  const hasDraft = content.state === 'draft' || content.state === 'scheduled';
  const trail = (place?.ancestors ?? []).map((ancestorId, index) => ({ title: place!.ancestorTitles[index], href: treeHref(ancestorId, 1, ancestorId) }));
  await renderAdmin(
    call,
    'admin/pages/edit.njk',
    {
      pageTitle: pageScreenTitles.editor(page.title),
      page,
      path,
      trail,
      treeHref: treeHref(id, 1, id),
      derivedSlug: slugify(typeof values.title === 'string' ? values.title : page.title),
      childCount: place?.child_count ?? 0,
      authors,
      picker,
      templates: templateOptions(catalog),
      visibilities: VISIBILITIES,
      blockTypes: blockTypeOptions(catalog),
      // One empty block per type, for a script to add blocks without a reload.
      newBlocks: catalog.blocks
        .list()
        .filter((type) => type.editor)
        .map((type) => ({ type: type.type, item: documentBlock(catalog, NEW_KEY, structuredClone(type.editor!.empty)) })),
      media: media.items,
      chosenMedia,
      mediaMaxMegabytes: megabytes(ctx.config.mediaMaxBytes),
      // A chosen picture beyond the library's first 200 gets a choice of its own.
      mediaListed: Object.fromEntries(media.items.map((item) => [String(item.id), true])),
      canManage,
      // «Publier» and «Programmer» only for whoever may publish this page.
      canPublish: canManage && canPublish,
      // «Soumettre à la relecture» (issue 26): the draft goes to the reviewers; the bar says while it is there.
      inReview: review?.state === 'in_review' ? review : undefined,
      presence,
      presenceIntervalMs: ctx.config.pagePresenceIntervalMs,
      state: content.state,
      hasDraft,
      urlPrefix: address.prefix,
      urlPath: `${address.prefix.slice(ctx.config.baseUrl.length)}${typeof values.slug === 'string' ? values.slug : ''}`,
      parentLabel: address.parentLabel,
      opened: openedSections(view.fieldErrors, picker, content.state === 'scheduled'),
      savedLine: savedLine(ctx.config.timeZone, authors, hasDraft, ctx.clock.now()),
      neverPublished: page.published_revision === null,
      scheduledAt: content.scheduled_at,
      scheduleValue: instantToZoned(content.scheduled_at, ctx.config.timeZone),
      timeZone: ctx.config.timeZone,
      acted: done && typeof query.at === 'number' ? { at: query.at, message: editorMessages[done] } : undefined,
      // «Accès»: who may read the page (admin-screens-access.ts), changed by whoever may publish it.
      accessPanel: await accessPanel(ctx, page),
      ...locals,
      document: view.document,
      values,
      ifRevision: view.ifRevision,
      fieldErrors: view.fieldErrors,
    },
    status,
  );
}

/** What the form's page fields become in the model's patch. */
function patchOf(input: PageFormInput, timeZone: string): PagePatch {
  const patch: PagePatch = {
    title: input.title,
    slug: input.slug || slugify(input.title),
    parent_id: input.parent_id === '' ? null : input.parent_id,
    template: input.template,
    visibility: input.visibility,
    seo: seoFrom(input),
  };
  // The form's datetime-local field has no offset: it is the site's wall clock, like the
  // schedule's. Unreadable text goes to the model as typed, which refuses it with its message.
  if (input.created_at) patch.created_at = zonedToInstant(input.created_at, timeZone)?.toISOString() ?? input.created_at;
  return patch;
}

// POST /admin/pages/:id {if_revision, action, …the page's fields, blocks, b.<key>.<field>}
export async function saveDocument(catalog: PageCatalog, call: Call<{ id: number }, Record<string, never>, { if_revision: number }>): Promise<void> {
  const { ctx, params } = call;
  const body = (call.req.body ?? {}) as Record<string, unknown>;
  applyChoices(body);
  const { parsed, details } = readDocument(catalog, body, uploadedKeys(call.req));
  // A refused file is a message on its block; everything else typed comes back with it.
  const refused = refusedFiles(call.req);
  if (!parsed || refused.length) throw new ValidationError(pageScreenMessages.invalidDocument, { details: [...details, ...refused] });
  const action = readAction(body, parsed.blocks.length);
  const actor = actorOf(call);
  const scheduleAt = action.kind === 'schedule' ? zonedToInstant(typeof body.schedule_at === 'string' ? body.schedule_at : '', ctx.config.timeZone) : undefined;
  // Publishing, scheduling and cancelling a schedule need pages.publish: refused before the draft is saved.
  if (action.kind === 'publish' || action.kind === 'schedule' || action.kind === 'unschedule') await assertMayPublish(call, params.id);
  if (action.kind === 'schedule') {
    // Checked before the draft is saved, so a refusal leaves the form's revision current.
    const problem = !scheduleAt ? editorMessages.scheduleMissing : scheduleAt.getTime() <= ctx.clock.nowMs() ? revisionMessages.scheduleInPast : undefined;
    if (problem) throw new ValidationError(problem, { details: [{ field: 'schedule_at', message: problem }] });
  }
  const reviewAt = action.kind === 'review' ? wishedTime(typeof body.review_at === 'string' ? body.review_at : undefined, ctx.config.timeZone) : null;
  // Checked before the draft is saved, as the schedule's time is.
  if (reviewAt && !(reviewAt.getTime() > ctx.clock.nowMs())) {
    throw new ValidationError(reviewMessages.atInPast, { details: [{ field: 'review_at', message: reviewMessages.atInPast }] });
  }
  // The files sent with the form become media of the library, named by their blocks.
  if (action.kind !== 'discard' && action.kind !== 'autosave') await storeFormImages(ctx, actor, call.req, parsed, body);
  const outcome = applyAction(catalog, parsed, action);
  const base = `/admin/pages/${params.id}`;
  if (action.kind === 'autosave') {
    // The script's save while typing: never merged (a stale form is told to save by hand,
    // which merges and shows any clash), answered in JSON for the bar; a refusal is the
    // usual JSON error (the script asks for JSON), which the script turns into a line.
    const patch = { ...patchOf(parsed.page, ctx.config.timeZone), blocks: outcome.blocks };
    const saved = await saveDraft(ctx, params.id, patch, actor, catalog, call.body.if_revision, { autosave: true });
    return autosaved(call, saved);
  }
  if (action.kind === 'discard') {
    await discardDraft(ctx, params.id, actor);
    return redirectWithFlash(call.req, call.res, base, editorMessages.discarded);
  }
  // A form opened before someone else's save is merged with it; only a real clash refuses.
  const draft = await saveDraft(
    ctx,
    params.id,
    { ...patchOf(parsed.page, ctx.config.timeZone), blocks: outcome.blocks },
    actor,
    catalog,
    call.body.if_revision,
    { merge: true },
  );
  const merged = draft.merged ? `${editorMessages.merged(draft.merged_with ?? [])} ` : '';
  switch (action.kind) {
    case 'publish':
      await publishDraft(ctx, params.id, actor, draft.revision, catalog);
      return redirectWithFlash(call.req, call.res, base, merged + editorMessages.published);
    case 'schedule': {
      const at = scheduleAt as Date;
      await schedulePublication(ctx, params.id, at, actor);
      return redirectWithFlash(call.req, call.res, `${base}#schedule`, merged + editorMessages.scheduled(frenchDates(ctx.config.timeZone).dateTime(at)));
    }
    case 'preview': {
      // The preview shows what was just typed: the draft saved above, by its own link.
      const link = await createPreviewLink(ctx, params.id, { revision: draft.draft_revision, actor });
      // The script opens the tab itself and keeps its form on the revision just saved.
      if (call.req.accepts(['html', 'json']) === 'json') return previewed(call, draft, link.path);
      return call.res.redirect(303, link.path);
    }
    case 'review': {
      const comment = typeof body.review_comment === 'string' ? body.review_comment.slice(0, 5000) : undefined;
      await submitPageForReview(ctx, call.origin, params.id, { comment, at: reviewAt });
      return redirectWithFlash(call.req, call.res, `${base}/review`, merged + reviewScreenMessages.submitted);
    }
    case 'unschedule':
      await cancelSchedule(ctx, params.id, actor);
      return redirectWithFlash(call.req, call.res, `${base}#schedule`, merged + editorMessages.unscheduled);
    case 'parent-search': {
      const q = typeof body.parent_q === 'string' ? body.parent_q.trim().slice(0, 200) : '';
      return redirectWithFlash(call.req, call.res, `${base}?parent_q=${encodeURIComponent(q)}#page-parent`, merged + editorMessages.saved);
    }
    default:
      break;
  }
  if (outcome.done === 'saved') return redirectWithFlash(call.req, call.res, base, merged + editorMessages.saved);
  // The message and the focus go to the block acted on, not to the top of the page: the
  // message has `autofocus`, which scrolls it into view (a #fragment would cancel it).
  const acted = `${base}?done=${outcome.done}&at=${Math.max(0, outcome.at)}`;
  if (merged) return redirectWithFlash(call.req, call.res, acted, merged.trim());
  call.res.redirect(303, acted);
}

/** The summary's links name a block's field as the form does (`b.<key>.<field>`), labelled «Bloc n : field». */
function summaryOfDocument(document: EditorDocument, summary: ErrorSummary | undefined): ErrorSummary | undefined {
  if (!summary) return summary;
  const fields = summary.fields.map((entry) => {
    const byKey = /^b\.([a-z0-9]+)\.(.+)$/.exec(entry.name);
    const byIndex = /^blocks\.(\d+)\.(.+)$/.exec(entry.name);
    const index = byKey ? document.blocks.findIndex((item) => item.key === byKey[1]) : byIndex ? Number(byIndex[1]) : -1;
    const block = document.blocks[index];
    if (!block) return entry.name === 'at' ? { ...entry, name: 'schedule_at' } : entry;
    const name = (byKey ?? byIndex)![2];
    const label = block.fields?.find((field) => field.name === name)?.label ?? name;
    return { ...entry, name: `b.${block.key}.${name}`, label: pageScreenTitles.blockField(index + 1, label) };
  });
  return { ...summary, fields };
}

/**
 * A refused POST: the submitted document comes back as typed (read again from the
 * request, whole: the generic echo shortens long texts) with the messages in place;
 * a stale revision shows the conflict screen instead.
 */
export async function rerenderEditor(catalog: PageCatalog, options: TreeOptions, call: AnyCall, locals: FormLocals, status: number): Promise<void> {
  const body = (call.req.body ?? {}) as Record<string, unknown>;
  applyChoices(body);
  const { document } = readDocument(catalog, body, uploadedKeys(call.req));
  const fieldErrors = placeErrors(document, locals.fieldErrors);
  const submittedRevision = typeof body.if_revision === 'string' ? body.if_revision : '';
  if (locals.errorCode === 'revision_conflict') return showConflict(catalog, options, call, document, status);
  const errorSummary = summaryOfDocument(document, locals.errorSummary as ErrorSummary | undefined);
  await showEditor(catalog, options, call, { ...locals, errorSummary, editor: { document, fieldErrors, ifRevision: submittedRevision } }, status);
}

/**
 * The conflict screen. A merge that clashed: the merged document, with only the fields
 * changed on both sides listed above it, each with both versions and a choice. Without
 * the revision the form was based on (pruned since): the submitted document, editable,
 * beside the current content.
 */
async function showConflict(catalog: PageCatalog, options: TreeOptions, call: AnyCall, submitted: EditorDocument, status: number): Promise<void> {
  const id = pathId(call);
  const { ctx } = call;
  const body = (call.req.body ?? {}) as Record<string, unknown>;
  const { parsed } = readDocument(catalog, body);
  const basedOn = Number(body.if_revision);
  const patch = parsed
    ? { ...patchOf(parsed.page, ctx.config.timeZone), blocks: applyAction(catalog, parsed, readAction(body, parsed.blocks.length)).blocks }
    : undefined;
  const preview = patch && Number.isInteger(basedOn) ? await previewDraftMerge(ctx, id, patch, catalog, basedOn) : null;
  if (preview && preview.result.conflicts.length) {
    const view = conflictView(catalog, preview, submitted, (content) => contentValues(content, ctx.config.timeZone));
    return showEditor(
      catalog,
      options,
      call,
      {
        conflict: { fields: view.fields, mergedWith: view.mergedWith, revision: preview.current.revision },
        error: pageScreenMessages.mergeConflict,
        editor: { document: view.document, fieldErrors: {}, ifRevision: preview.current.revision },
      },
      status,
    );
  }
  const current = await currentContent(ctx, id);
  const theirs = storedDocument(catalog, contentValues(current, call.ctx.config.timeZone), current.blocks);
  await showEditor(
    catalog,
    options,
    call,
    {
      conflict: { current: theirs, revision: current.revision },
      error: pageScreenMessages.conflict,
      // Saving the submitted content again, from the current revision, keeps it.
      editor: { document: submitted, fieldErrors: {}, ifRevision: current.revision },
    },
    status,
  );
}

// POST /admin/pages/:id/preview-links/revoke — «Révoquer les liens d'aperçu»: every
// link made for the page stops working at once; back to the editor.
export async function revokePreviews(call: Call<{ id: number }>): Promise<void> {
  await revokePreviewLinks(call.ctx, call.params.id, { actor: actorOf(call) });
  redirectWithFlash(call.req, call.res, `/admin/pages/${call.params.id}`, editorMessages.previewLinksRevoked);
}

// POST /admin/pages/:id/preview — a private page's «Voir sur le site»: a preview link
// of its pending draft, else of its live content (the site shows it to no one else).
export async function previewPage(call: Call<{ id: number }>): Promise<void> {
  const link = await createPreviewLink(call.ctx, call.params.id, { actor: actorOf(call) });
  call.res.redirect(303, link.path);
}
