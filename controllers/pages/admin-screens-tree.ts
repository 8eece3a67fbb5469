// GET /admin/pages: the page tree one level at a time. Without `open`, the root pages
// (a page of them); with `open=<id>`, the path down to that page expanded: each level
// shows the page of siblings holding the next page of the path, and the opened page
// its children (`page` pages through them). Every link works without JavaScript: a
// page with sub-pages links to itself opened, an opened one to its parent. With a
// search (`q`) or a visibility filter the screen lists the matching pages instead, in
// title order, each with its path. A screen reads two statements after the session,
// whatever the size of the site.
import Joi from 'joi';
import { text } from '../../lib/schema-primitives.js';
import { mayCreatePages } from './page-rights.js';
import { sectionsOnly } from './section-rights.js';
import { showSectionTree } from './admin-screens-sections.js';
import { chainTo, findPages, placesOf, treeLevels, type ChainNode, type LevelRequest, type TreeRow } from '../../models/pages/admin-tree.js';
import type { Visibility } from '../../models/pages/pages.js';
import type { AnyCall, Call } from '../../routes/define.js';
import { renderAdmin } from '../admin/shell.js';
import { othersByPage } from './presence.js';
import { pageScreenTitles } from './messages.js';

export interface TreeOptions {
  /** Pages per level of the tree, and per page of a search. */
  pageSize: number;
  /** Candidates the parent picker shows. */
  pickerSize: number;
}

export const DEFAULT_TREE_OPTIONS: TreeOptions = { pageSize: 25, pickerSize: 20 };

export interface TreeQuery {
  open?: number;
  page: number;
  q?: string;
  visibility?: Visibility | '';
}

export const treeQuery = Joi.object<TreeQuery>({
  open: Joi.number().integer().min(1).max(2_147_483_647),
  page: Joi.number().integer().min(1).max(1_000_000).default(1),
  q: text().trim().max(200).allow(''),
  visibility: text().valid('public', 'private', ''),
});

/** The tree screen's URL: `open` expanded, its children at `page`. */
export function treeHref(open: number | null, page = 1, anchor?: number): string {
  const query = new URLSearchParams();
  if (open !== null) query.set('open', String(open));
  if (page > 1) query.set('page', String(page));
  const search = query.toString();
  return `/admin/pages${search ? `?${search}` : ''}${anchor ? `#page-${anchor}` : ''}`;
}

export interface NodeView extends TreeRow {
  path: string;
  /** An ancestor is private: the site does not show this page. */
  hiddenAbove: boolean;
  /** On the expanded path (its children are shown below it). */
  expanded: boolean;
  /** The page `open` names. */
  current: boolean;
  /** Opens this page (its children shown), or folds it back to its parent. */
  toggleHref: string;
  children?: LevelView;
}

export interface LevelView {
  parentId: number | null;
  nodes: NodeView[];
  total: number;
  from: number;
  to: number;
  previousHref?: string;
  nextHref?: string;
}

export function levelView(level: { parentId: number | null; offset: number; total: number }, nodes: NodeView[], pageSize: number): LevelView {
  const page = Math.floor(level.offset / pageSize) + 1;
  return {
    parentId: level.parentId,
    nodes,
    total: level.total,
    from: nodes.length ? level.offset + 1 : 0,
    to: level.offset + nodes.length,
    previousHref: page > 1 ? treeHref(level.parentId, page - 1) : undefined,
    nextHref: level.offset + nodes.length < level.total ? treeHref(level.parentId, page + 1) : undefined,
  };
}

/** The levels down to `chain`'s last page, nested: each chain page holds the next level. */
async function expandedTree(call: AnyCall, chain: ChainNode[], page: number, pageSize: number): Promise<LevelView> {
  const requests: LevelRequest[] = [{ parentId: null, offset: 0 }, ...chain.map((node) => ({ parentId: node.id, offset: 0 }))];
  // Each level shows the page holding the next page of the path; the last, the page asked for.
  chain.forEach((node, index) => (requests[index].offset = Math.floor(node.position / pageSize) * pageSize));
  requests[requests.length - 1].offset = (page - 1) * pageSize;
  const levels = await treeLevels(call.ctx, requests, pageSize);
  let prefix = '';
  let hiddenAbove = false;
  const views = levels.map((level, index) => {
    const nodes = level.rows.map((row): NodeView => {
      const expanded = chain[index]?.id === row.id;
      return {
        ...row,
        path: `${prefix}/${row.slug}`,
        hiddenAbove,
        expanded,
        current: expanded && index === chain.length - 1,
        // Folding goes back to the parent opened at the page of its children that holds this one.
        toggleHref: expanded ? treeHref(row.parent_id, Math.floor(level.offset / pageSize) + 1, row.id) : treeHref(row.id, 1, row.id),
      };
    });
    const node = chain[index];
    if (node) {
      prefix += `/${node.slug}`;
      hiddenAbove ||= node.visibility !== 'public';
    }
    return levelView(level, nodes, pageSize);
  });
  views.forEach((view, index) => {
    const holder = view.nodes.find((node) => node.expanded);
    if (holder && views[index + 1]) holder.children = views[index + 1];
  });
  return views[0];
}

/** Search or filter: matching pages in title order, each with its path (`find`: in the caller's sections only). */
export async function matchingPages(call: AnyCall, query: TreeQuery, pageSize: number, find: typeof findPages = findPages) {
  const search = { q: query.q || undefined, visibility: query.visibility || undefined };
  const { rows, more } = await find(call.ctx, search, pageSize, (query.page - 1) * pageSize);
  const places = await placesOf(
    call.ctx,
    rows.map((row) => row.id),
  );
  const href = (page: number) => {
    const params = new URLSearchParams();
    if (search.q) params.set('q', search.q);
    if (search.visibility) params.set('visibility', search.visibility);
    if (page > 1) params.set('page', String(page));
    return `/admin/pages?${params.toString()}`;
  };
  return {
    rows: rows.map((row) => {
      const place = places.get(row.id);
      const hiddenAbove = place ? !place.publicBranch && row.visibility === 'public' : false;
      return { ...row, path: place?.path ?? `/${row.slug}`, hiddenAbove, expanded: false, current: false, toggleHref: treeHref(row.id, 1, row.id) };
    }),
    from: rows.length ? (query.page - 1) * pageSize + 1 : 0,
    to: (query.page - 1) * pageSize + rows.length,
    previousHref: query.page > 1 ? href(query.page - 1) : undefined,
    nextHref: more ? href(query.page + 1) : undefined,
  };
}

// GET /admin/pages?open=&page=&q=&visibility=
export async function showPageTree(options: TreeOptions, call: Call<Record<string, never>, TreeQuery>): Promise<void> {
  const { query } = call;
  if (sectionsOnly(call)) return showSectionTree(options, call);
  const canManage = mayCreatePages(call);
  const base = {
    pageTitle: pageScreenTitles.tree,
    canManage,
    q: query.q ?? '',
    visibility: query.visibility ?? '',
    presence: await othersByPage(call),
    presenceIntervalMs: call.ctx.config.pagePresenceIntervalMs,
  };
  if (query.q || query.visibility) {
    await renderAdmin(call, 'admin/pages/tree.njk', { ...base, results: await matchingPages(call, query, options.pageSize) });
    return;
  }
  const chain = query.open ? await chainTo(call.ctx, query.open) : [];
  const root = await expandedTree(call, chain, query.page, options.pageSize);
  await renderAdmin(call, 'admin/pages/tree.njk', { ...base, root, openMissing: Boolean(query.open) && !chain.length });
}
