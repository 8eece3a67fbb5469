// Who may write and who may publish a page (issue 26). pages.manage writes drafts of any
// page, moves and deletes; pages.publish makes content live (publish, schedule, a live
// write, a visibility change). pages.manage_own and pages.publish_own give the same on
// the pages the caller created (app_pages.author_id), checked with one statement when
// the caller holds only the «own» permission. Grants on a section of the tree add the
// same permissions on that section (section-rights.ts), checked in that one statement.
import { ForbiddenError } from '../../lib/errors.js';
import { isPageAuthor, subtreeHasOtherAuthors } from '../../models/pages/authors.js';
import type { Access, AnyCall } from '../../routes/define.js';
import { pageRightsMessages } from './messages.js';
import { checkCreatePage, checkPageRight, checkViewPage, grantedManage, grantedManageAll, grantedPublish, scoped } from './section-rights.js';

const MANAGE_SCOPED = ['pages.manage', 'pages.manage_own'];

/** Reads pages: pages.view, or a grant on the section of the page of `:id` (lists show the caller's sections). */
export const VIEW_PAGES: Access = { permission: 'pages.view', section: { permissions: ['pages.view'], check: checkViewPage } };

/** The page of the row's `:id` is the caller's own (true for an unknown page: the use case answers 404). */
function ownsPathPage(call: AnyCall): Promise<boolean> {
  const id = Number((call.params as { id?: unknown }).id);
  const userId = call.origin.userId;
  if (!Number.isSafeInteger(id) || userId === null) return Promise.resolve(userId !== null);
  return isPageAuthor(call.ctx, id, userId);
}

/** Anyone who may write drafts: what they create is theirs. */
const ownsNewPage = (call: AnyCall) => Promise.resolve(call.origin.userId !== null);

/** Writes a draft of the page of `:id` (pages.manage, or pages.manage_own on one's own page). */
export const MANAGE_PAGE: Access = {
  permission: 'pages.manage',
  own: { permission: 'pages.manage_own', owns: ownsPathPage, refusal: pageRightsMessages.notOwner },
  section: { permissions: MANAGE_SCOPED, check: checkPageRight('pages.manage', 'pages.manage_own', pageRightsMessages.notOwner) },
};

/** Creates a page, or copies one (the copy is the caller's). */
export const CREATE_PAGE: Access = {
  permission: 'pages.manage',
  own: { permission: 'pages.manage_own', owns: ownsNewPage, refusal: pageRightsMessages.notOwner },
  section: { permissions: MANAGE_SCOPED, check: checkCreatePage },
};

/** Publishes or schedules the page of `:id` (pages.publish, or pages.publish_own on one's own page). */
export const PUBLISH_PAGE: Access = {
  permission: 'pages.publish',
  own: { permission: 'pages.publish_own', owns: ownsPathPage, refusal: pageRightsMessages.notOwnerPublish },
  section: {
    permissions: ['pages.publish', 'pages.publish_own'],
    check: checkPageRight('pages.publish', 'pages.publish_own', pageRightsMessages.notOwnerPublish),
  },
};

function holds(call: AnyCall, permission: string): boolean {
  return Boolean(call.req.user?.permissions.includes(permission));
}

/**
 * Whether the caller may make the page live: pages.publish, or pages.publish_own on a
 * page it created (`pageId` null: a page being created, which will be its own).
 */
export async function mayPublishPage(call: AnyCall, pageId: number | null): Promise<boolean> {
  if (holds(call, 'pages.publish')) return true;
  if (await grantedPublish(call, pageId)) return true;
  if (!holds(call, 'pages.publish_own') || call.origin.userId === null) return false;
  return pageId === null || isPageAuthor(call.ctx, pageId, call.origin.userId);
}

/** Whether the caller may write drafts of the page (for the screens' buttons). */
export async function mayManagePage(call: AnyCall, pageId: number): Promise<boolean> {
  if (holds(call, 'pages.manage')) return true;
  if (await grantedManage(call, pageId)) return true;
  if (!holds(call, 'pages.manage_own') || call.origin.userId === null) return false;
  return isPageAuthor(call.ctx, pageId, call.origin.userId);
}

/** Whether the caller may create pages at all (the tree's «Nouvelle page»). */
export function mayCreatePages(call: AnyCall): boolean {
  return MANAGE_SCOPED.some((permission) => holds(call, permission) || scoped(call, permission));
}

/** Refuses a live change the caller may not make (403 `publish_forbidden`). */
export async function assertMayPublish(call: AnyCall, pageId: number | null, message: string = pageRightsMessages.publishForbidden): Promise<void> {
  if (!(await mayPublishPage(call, pageId))) throw new ForbiddenError(message, { code: 'publish_forbidden' });
}

/**
 * A caller who writes only its own pages deletes a subtree (`cascade`) only when every
 * page in it is its own too (403 `not_owner` otherwise, nothing deleted).
 */
export async function assertMayDeleteSubtree(call: AnyCall, pageId: number, cascade: boolean): Promise<void> {
  if (!cascade || holds(call, 'pages.manage') || call.origin.userId === null || (await grantedManageAll(call, pageId))) return;
  if (await subtreeHasOtherAuthors(call.ctx, pageId, call.origin.userId)) throw new ForbiddenError(pageRightsMessages.notOwnerSubtree, { code: 'not_owner' });
}
