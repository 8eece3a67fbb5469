// /admin/users: the list (search, pagination), the detail page and the invitation
// form. The forms of the detail page are in user-forms.ts. Every write calls the same
// models and services as the REST API (models/auth/admin-users.ts, services/users.ts).
import type { AppContext } from '../../lib/context.js';
import { hasPermission } from '../../middleware/require-auth.js';
import { getUser, listUserRoles, listUsers } from '../../models/auth/admin-users.js';
import { hasCredential } from '../../models/auth/credentials.js';
import { BASE_ROLE, listRoles } from '../../models/auth/roles.js';
import { countUserSessions } from '../../models/auth/sessions.js';
import { lastSignIns } from '../../models/auth/sign-ins.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { inviteUser } from '../../services/users.js';
import { callerOf } from '../api/caller.js';
import { adminMessages, adminTitles } from './messages.js';
import { authPageMessages } from '../auth/messages.js';
import type { InviteForm } from './schemas.js';
import { twoFactorStatus } from '../../models/auth/two-factor.js';
import { pathId, redirectWithFlash, renderAdmin } from './shell.js';
import { outboxFolder } from '../../services/mail-policy.js';

const USERS_PAGE_SIZE = 25;

interface RoleOption {
  value: string | number;
  label: string;
  id: number;
  name: string;
  description?: string;
}

/** Every role as a choice (value: its key, shown: its label), and key → label for the role lists. */
async function roleChoices(ctx: AppContext): Promise<{ options: RoleOption[]; labels: Record<string, string> }> {
  const { items } = await listRoles(ctx, { limit: 500, offset: 0 });
  return {
    options: items.map((role) => ({ value: role.name, label: role.label, id: role.id, name: role.name, description: role.description })),
    labels: Object.fromEntries(items.map((role) => [role.name, role.label])),
  };
}

// GET /admin/users?search=&page=
export async function showUserList(call: Call<Record<string, never>, { search: string; page: number }>): Promise<void> {
  const { ctx, req, query } = call;
  const { search, page } = query;
  const [{ items, total }, { labels }] = await Promise.all([
    listUsers(ctx, { search: search || undefined, limit: USERS_PAGE_SIZE, offset: (page - 1) * USERS_PAGE_SIZE }),
    roleChoices(ctx),
  ]);
  const signIns = await lastSignIns(
    ctx,
    items.map((user) => user.id),
  );
  const pages = Math.max(1, Math.ceil(total / USERS_PAGE_SIZE));
  const link = (target: number) => `/admin/users?${new URLSearchParams({ ...(search ? { search } : {}), page: String(target) })}`;
  await renderAdmin(call, 'admin/users/list.njk', {
    pageTitle: adminTitles.users,
    users: items,
    roleLabels: labels,
    signIns: Object.fromEntries(signIns),
    total,
    search,
    page,
    pages,
    previous: page > 1 ? link(page - 1) : undefined,
    next: page < pages ? link(page + 1) : undefined,
    canManage: hasPermission(req, 'users.manage'),
    // Whether a pending invitation has expired (its expiry is ISO 8601, like this).
    now: ctx.clock.now().toISOString(),
  });
}

// GET /admin/users/new — also the page re-rendered when the invitation is refused.
export async function showInviteForm(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  await renderAdmin(
    call,
    'admin/users/new.njk',
    { pageTitle: adminTitles.inviteUser, roles: (await roleChoices(call.ctx)).options, values: { role: BASE_ROLE }, ...locals },
    status,
  );
}

// POST /admin/users — with a password the account is usable at once; without, the
// invitation email is sent (SPEC A7); a failed invitation is said on the next page.
export async function saveInvitation({ ctx, req, res, body }: Call<Record<string, never>, Record<string, never>, InviteForm>): Promise<void> {
  const { user, invitationSent } = await inviteUser(ctx, callerOf(req), { ...body, password: body.password || undefined });
  const detail = `/admin/users/${user.id}`;
  if (invitationSent === undefined) return redirectWithFlash(req, res, detail, adminMessages.userCreated);
  if (!invitationSent) return redirectWithFlash(req, res, detail, adminMessages.userInvitationFailed(user.email), 'error');
  redirectWithFlash(req, res, detail, adminMessages.userInvited(user.email, outboxFolder(ctx)));
}

// GET /admin/users/:id — also the page re-rendered when one of its forms is refused.
export async function showUserDetail(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const { ctx, req } = call;
  const id = pathId(call);
  const [user, userRoles, { options: roles, labels }, sessions, credential, twoFactor, signIns] = await Promise.all([
    getUser(ctx, id),
    listUserRoles(ctx, id),
    roleChoices(ctx),
    countUserSessions(ctx, id),
    hasCredential(ctx, id),
    twoFactorStatus(ctx, id),
    lastSignIns(ctx, [id]),
  ]);
  const held = new Set(userRoles.map((role) => role.name));
  await renderAdmin(
    call,
    'admin/users/detail.njk',
    {
      pageTitle: user.name,
      target: user,
      userRoles,
      roleLabels: labels,
      lastSignIn: signIns.get(id),
      passwordRules: authPageMessages.passwordRules,
      assignable: roles.filter((role) => !held.has(role.name)).map((role) => ({ value: role.id, label: role.label })),
      sessions,
      twoFactor,
      pendingInvitation: !credential,
      now: ctx.clock.now().toISOString(),
      canManage: hasPermission(req, 'users.manage'),
      // One's own address and password change on the profile page (current password).
      self: req.user?.id === user.id,
      ...locals,
    },
    status,
  );
}
