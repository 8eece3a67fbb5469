// The page tree as the admin screens show it: every page (light rows) arranged under
// its parent, each with its public path. Built once per request from one query.
import type { AppContext } from '../../lib/context.js';
import { listPages, type PageSummary, type Visibility } from '../../models/pages/pages.js';

export interface TreeNode extends PageSummary {
  path: string;
  depth: number;
  children: TreeNode[];
  /** Shown at the top level because its parent is filtered out. */
  detached?: boolean;
}

export interface PageTree {
  roots: TreeNode[];
  byId: Map<number, TreeNode>;
  /** Depth-first order (titles A→Z), for the parent picker. */
  flat: TreeNode[];
}

// Far above any real site; the admin list has no smaller page size to respect here.
const TREE_LIMIT = 20_000;

export async function loadPageTree(ctx: AppContext): Promise<PageTree> {
  const { items } = await listPages(ctx, { limit: TREE_LIMIT });
  const byId = new Map<number, TreeNode>(items.map((page) => [page.id, { ...page, path: '', depth: 0, children: [] }]));
  const roots: TreeNode[] = [];
  for (const node of byId.values()) {
    const parent = node.parent_id === null ? undefined : byId.get(node.parent_id);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  const flat: TreeNode[] = [];
  const walk = (nodes: TreeNode[], prefix: string, depth: number) => {
    for (const node of nodes) {
      node.path = `${prefix}/${node.slug}`;
      node.depth = depth;
      flat.push(node);
      walk(node.children, node.path, depth + 1);
    }
  };
  walk(roots, '', 0);
  return { roots, byId, flat };
}

/** The pages of one visibility, each under its nearest shown ancestor's place. */
export function filterTree(tree: PageTree, visibility: Visibility): TreeNode[] {
  const keep = (node: TreeNode, detached: boolean): TreeNode[] => {
    const children = node.children.flatMap((child) => keep(child, node.visibility !== visibility));
    if (node.visibility !== visibility) return children;
    return [{ ...node, detached, children }];
  };
  return tree.roots.flatMap((root) => keep(root, false));
}

/** Ids of the page and all its descendants (a page cannot move under them). */
export function subtreeIds(node: TreeNode | undefined): Set<number> {
  const ids = new Set<number>();
  const walk = (current: TreeNode) => {
    ids.add(current.id);
    current.children.forEach(walk);
  };
  if (node) walk(node);
  return ids;
}

export function countDescendants(node: TreeNode | undefined): number {
  return node ? subtreeIds(node).size - 1 : 0;
}
