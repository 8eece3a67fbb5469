// A role whose page permissions come only from a grant on one section (issue 26, item 4),
// and the pages around it: shared by the API and the screens' tests of the section.
import type { AppContext } from '../../lib/context.js';
import { saveDraft } from '../../models/pages/drafts.js';
import { grantOnPage } from '../../models/pages/grants.js';
import { createPage } from '../../models/pages/pages.js';
import type { User } from '../../models/auth/users.js';
import { caller, makeUser, type LoggedIn } from '../support/fixtures.js';

export interface SectionWorld {
  ctx: AppContext;
  me: User & LoggedIn;
  roleId: number;
  /** The granted section's top page, another's. */
  section: number;
  /** A page under it, another's, with a pending draft. */
  inside: number;
  /** A page under it the caller created, with a pending draft. */
  mineInside: number;
  /** A root page outside the section, another's, with a pending draft. */
  outside: number;
  /** A root page outside the section the caller created (before the grant), with a pending draft. */
  mineOutside: number;
}

/** A caller whose role holds admin.access only, and a grant of `permissions` on one section. */
export async function sectionWorld(ctx: AppContext, permissions = ['pages.manage', 'pages.publish']): Promise<SectionWorld> {
  const me = await caller(ctx, { permissions: ['admin.access'], name: 'Rédactrice de rubrique' });
  const roleId = (await ctx.db('app_auth_users').where({ id: me.id }).first('role_id'))!.role_id;
  const other = await makeUser(ctx);
  const as = (user: User) => ({ id: user.id, name: user.name, ip: null });
  const section = (await createPage(ctx, { title: 'Rubrique' }, as(other))).id;
  const inside = (await createPage(ctx, { title: 'Dedans', parent_id: section }, as(other))).id;
  const mineInside = (await createPage(ctx, { title: 'Mienne dedans', parent_id: section }, as(me))).id;
  const outside = (await createPage(ctx, { title: 'Dehors' }, as(other))).id;
  const mineOutside = (await createPage(ctx, { title: 'Mienne dehors' }, as(me))).id;
  for (const id of [inside, mineInside, outside, mineOutside]) await saveDraft(ctx, id, { title: `Brouillon ${id}` });
  await grantOnPage(ctx, section, roleId, permissions, null);
  return { ctx, me, roleId, section, inside, mineInside, outside, mineOutside };
}
