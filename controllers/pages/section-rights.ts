// Rights on a section of the tree (issue 26, item 4): what a caller holds on a page
// through its roles' grants (models/pages/grants.ts), added to what it holds site-wide.
// A caller without the row's permission site-wide is checked here once its input is
// validated, in one statement (the walk up from the page, and from the new parent of a
// move or a creation, in the same statement); the answer is kept for the rest of the
// request, so the use case's own questions (may it publish?) read nothing more.
import { ForbiddenError, HiddenSubjectError } from '../../lib/errors.js';
import { isPageAuthor } from '../../models/pages/authors.js';
import { grantMessages } from '../../models/pages/grant-messages.js';
import { sectionFacts, type SectionFacts } from '../../models/pages/grants.js';
import type { AnyCall } from '../../routes/define.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** What the caller holds through grants on the pages this request asked about (null: no such page). */
      pageSections?: Map<number, SectionFacts | null>;
      /** The parent a page is being created under (a creation or a copy), as the row's check read it. */
      creationParent?: SectionFacts | null;
    }
  }
}

function siteWide(call: AnyCall, permission: string): boolean {
  return Boolean(call.req.user?.permissions.includes(permission));
}

/** The caller holds this permission on some section (a grant to one of its roles). */
export function scoped(call: AnyCall, permission: string): boolean {
  return Boolean(call.req.user?.scoped_permissions?.includes(permission));
}

function hasGrants(call: AnyCall): boolean {
  return Boolean(call.req.user?.scoped_permissions?.length);
}

/** The caller's grants on these pages: one statement for those this request has not read yet. */
async function sectionsOf(call: AnyCall, ids: number[]): Promise<Map<number, SectionFacts | null>> {
  const memo = (call.res.locals.pageSections ??= new Map());
  const missing = [...new Set(ids)].filter((id) => !memo.has(id));
  const userId = call.origin.userId;
  if (missing.length && userId !== null) {
    const read = await sectionFacts(call.ctx, userId, missing);
    for (const id of missing) memo.set(id, read.get(id) ?? null);
  }
  return memo;
}

const mine = (call: AnyCall, facts: SectionFacts) => call.origin.userId !== null && facts.author_id === call.origin.userId;

/** `permission` on the page, site-wide or granted, or `own` (site-wide or granted) on a page the caller created. */
function holdsOn(call: AnyCall, facts: SectionFacts, permission: string, own?: string): boolean {
  if (siteWide(call, permission) || facts.granted.includes(permission)) return true;
  return Boolean(own && (siteWide(call, own) || facts.granted.includes(own)) && mine(call, facts));
}

function outside(message: string = grantMessages.outsideSection): ForbiddenError {
  return new ForbiddenError(message, { code: 'outside_section' });
}

/** A page outside every section of the caller: not even its form's page is shown back. */
function hidden(): ForbiddenError {
  return new HiddenSubjectError(grantMessages.outsideSection, { code: 'outside_section' });
}

function pathId(call: AnyCall): number | null {
  const id = Number((call.params as { id?: unknown }).id);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/**
 * The parent a write asks for: a number, null (the root), or undefined when the input
 * names none (a JSON body without `parent_id`; the editor's form carries it raw).
 */
function requestedParent(call: AnyCall): number | null | undefined {
  const body = call.body as { parent_id?: unknown };
  const raw = (call.req.body ?? {}) as { parent_id?: unknown };
  const value = body.parent_id !== undefined ? body.parent_id : raw.parent_id;
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  const id = Number(value);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** Reading a page of `:id`: a grant on it or above it (any grant lets its role see the section). */
export async function checkViewPage(call: AnyCall): Promise<void> {
  const id = pathId(call);
  if (id === null) return; // a list: the handler shows the caller's sections only
  const facts = (await sectionsOf(call, [id])).get(id);
  if (facts && !facts.granted.includes('pages.view')) throw hidden();
}

/**
 * Writing (or publishing) the page of `:id` by a caller without `permission` site-wide:
 * granted on its section, or `own` on a page it created. A move by way of a grant
 * stays inside the caller's sections.
 */
export function checkPageRight(permission: string, own: string, notOwner: string) {
  return async function checkPage(call: AnyCall): Promise<void> {
    const id = pathId(call);
    const userId = call.origin.userId;
    if (id === null || userId === null) return;
    if (!hasGrants(call)) {
      // Site-wide «own» only, as before grants: the author, read alone.
      if (!(await isPageAuthor(call.ctx, id, userId))) throw new ForbiddenError(notOwner, { code: 'not_owner' });
      return;
    }
    const parent = permission === 'pages.manage' ? requestedParent(call) : undefined;
    const sections = await sectionsOf(call, typeof parent === 'number' ? [id, parent] : [id]);
    const facts = sections.get(id);
    if (!facts) return; // the use case answers 404
    if (siteWide(call, own) && mine(call, facts)) return;
    if (!holdsOn(call, facts, permission, own)) {
      if (siteWide(call, own) || facts.granted.includes(own)) throw new ForbiddenError(notOwner, { code: 'not_owner' });
      throw siteWide(call, 'pages.view') || facts.granted.includes('pages.view') ? outside() : hidden();
    }
    if (parent === undefined || parent === facts.parent_id) return;
    if (parent === null) throw outside(grantMessages.moveOutside);
    const target = sections.get(parent);
    if (!target) return; // an unknown parent: the model answers 400
    if (!(target.granted.includes('pages.manage') || target.granted.includes('pages.manage_own'))) throw outside(grantMessages.moveOutside);
  };
}

/**
 * Creating a page (or copying the page of `:id`, beside it) by a caller without
 * pages.manage site-wide: under a page of its sections, never at the root. The screens
 * that only show the form (GET) let it choose there.
 */
export async function checkCreatePage(call: AnyCall): Promise<void> {
  if (call.req.method === 'GET' || siteWide(call, 'pages.manage_own') || call.origin.userId === null) return;
  const id = pathId(call);
  let parent: SectionFacts | null;
  if (id !== null) {
    const facts = (await sectionsOf(call, [id])).get(id);
    if (!facts) return; // the use case answers 404
    if (facts.parent_id === null) throw outside(grantMessages.rootForbidden);
    parent = { ...facts, id: facts.parent_id, granted: facts.parent_granted, author_id: null };
  } else {
    const parentId = requestedParent(call) ?? null;
    if (parentId === null) throw outside(grantMessages.rootForbidden);
    const facts = (await sectionsOf(call, [parentId])).get(parentId);
    if (!facts) return; // an unknown parent: the model answers 400
    parent = facts;
  }
  if (!(parent.granted.includes('pages.manage') || parent.granted.includes('pages.manage_own'))) throw outside();
  call.res.locals.creationParent = parent;
}

/** A page being created (pageId null) or the page of `pageId`: the caller may make it live. */
export async function grantedPublish(call: AnyCall, pageId: number | null): Promise<boolean> {
  if (!hasGrants(call)) return false;
  if (pageId === null) {
    const parent = call.res.locals.creationParent;
    return Boolean(parent && (parent.granted.includes('pages.publish') || parent.granted.includes('pages.publish_own')));
  }
  const facts = (await sectionsOf(call, [pageId])).get(pageId);
  return Boolean(facts && holdsOn(call, facts, 'pages.publish', 'pages.publish_own'));
}

/** The caller writes drafts of the page through a grant. */
export async function grantedManage(call: AnyCall, pageId: number): Promise<boolean> {
  if (!hasGrants(call)) return false;
  const facts = (await sectionsOf(call, [pageId])).get(pageId);
  return Boolean(facts && holdsOn(call, facts, 'pages.manage', 'pages.manage_own'));
}

/** The caller holds pages.manage on the page through a grant (its whole subtree is then its to delete). */
export async function grantedManageAll(call: AnyCall, pageId: number): Promise<boolean> {
  if (!hasGrants(call)) return false;
  const facts = (await sectionsOf(call, [pageId])).get(pageId);
  return Boolean(facts?.granted.includes('pages.manage'));
}

/**
 * The caller's page permissions come only from grants: it sees only its sections (the
 * tree, the lists, the searches, the parent picker).
 */
export function sectionsOnly(call: AnyCall): boolean {
  return !siteWide(call, 'pages.view') && hasGrants(call);
}

/** The caller writes pages only through grants: the parent picker offers its sections only. */
export function writesInSectionsOnly(call: AnyCall): boolean {
  return !siteWide(call, 'pages.manage') && !siteWide(call, 'pages.manage_own') && hasGrants(call);
}
