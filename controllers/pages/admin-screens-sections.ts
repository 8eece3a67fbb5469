// GET /admin/pages for a user whose page permissions come only from grants (issue 26,
// item 4): its sections stand where the root pages stand, each opened as the whole
// tree's pages are; a page outside them is never shown, and its search looks inside
// them only. One statement more than the whole tree's screen: the sections' top pages.
import type { AppContext } from '../../lib/context.js';
import { chainTo, treeLevels, type LevelRequest, type PageSearch } from '../../models/pages/admin-tree.js';
import { findSectionPages, sectionRootRows, type SectionRootRow } from '../../models/pages/section-tree.js';
import type { Call } from '../../routes/define.js';
import { renderAdmin } from '../admin/shell.js';
import { levelView, matchingPages, treeHref, type LevelView, type NodeView, type TreeOptions, type TreeQuery } from './admin-screens-tree.js';
import { pageScreenTitles } from './messages.js';
import { mayCreatePages } from './page-rights.js';
import { othersByPage } from './presence.js';

function rootNode(row: SectionRootRow, expanded: boolean, current: boolean): NodeView {
  const { path, public_branch: publicBranch, ...tree } = row;
  return {
    ...tree,
    path,
    hiddenAbove: !publicBranch && row.visibility === 'public',
    expanded,
    current,
    toggleHref: expanded ? treeHref(null, 1, row.id) : treeHref(row.id, 1, row.id),
  };
}

export async function showSectionTree(options: TreeOptions, call: Call<Record<string, never>, TreeQuery>): Promise<void> {
  const { query } = call;
  const userId = call.origin.userId!;
  const { pageSize } = options;
  const base = {
    pageTitle: pageScreenTitles.tree,
    canManage: mayCreatePages(call),
    sectionsOnly: true,
    q: query.q ?? '',
    visibility: query.visibility ?? '',
    presence: await othersByPage(call),
    presenceIntervalMs: call.ctx.config.pagePresenceIntervalMs,
  };
  if (query.q || query.visibility) {
    const find = (ctx: AppContext, search: PageSearch, limit: number, offset?: number) => findSectionPages(ctx, userId, search, limit, offset);
    await renderAdmin(call, 'admin/pages/tree.njk', { ...base, results: await matchingPages(call, query, pageSize, find) });
    return;
  }
  const [roots, chain] = await Promise.all([sectionRootRows(call.ctx, userId), query.open ? chainTo(call.ctx, query.open) : Promise.resolve([])]);
  // The path from the section holding the opened page down to it; none outside the sections.
  const top = chain.findIndex((node) => roots.some((root) => root.id === node.id));
  const path = top >= 0 ? chain.slice(top) : [];
  const root: LevelView = {
    parentId: null,
    nodes: roots.map((row) => rootNode(row, row.id === path[0]?.id, path.length === 1 && row.id === path[0].id)),
    total: roots.length,
    from: roots.length ? 1 : 0,
    to: roots.length,
  };
  if (path.length) {
    // Each level shows the page holding the next page of the path; the last, the page asked for.
    const requests: LevelRequest[] = path.map((node) => ({ parentId: node.id, offset: 0 }));
    path.slice(1).forEach((node, index) => (requests[index].offset = Math.floor(node.position / pageSize) * pageSize));
    requests[requests.length - 1].offset = (query.page - 1) * pageSize;
    const levels = await treeLevels(call.ctx, requests, pageSize);
    let holder = root.nodes.find((node) => node.expanded)!;
    let prefix = holder.path;
    let hiddenAbove = holder.hiddenAbove || holder.visibility !== 'public';
    levels.forEach((level, index) => {
      const nodes = level.rows.map((row): NodeView => {
        const expanded = path[index + 1]?.id === row.id;
        return {
          ...row,
          path: `${prefix}/${row.slug}`,
          hiddenAbove,
          expanded,
          current: expanded && index + 1 === path.length - 1,
          toggleHref: expanded ? treeHref(row.parent_id, Math.floor(level.offset / pageSize) + 1, row.id) : treeHref(row.id, 1, row.id),
        };
      });
      holder.children = levelView(level, nodes, pageSize);
      const next = nodes.find((node) => node.expanded);
      if (next) {
        holder = next;
        prefix = next.path;
        hiddenAbove ||= next.visibility !== 'public';
      }
    });
  }
  await renderAdmin(call, 'admin/pages/tree.njk', { ...base, root, openMissing: Boolean(query.open) && !path.length });
}
