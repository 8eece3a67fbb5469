// /admin/users: the list (search, pagination), the detail page and the invitation
// form. The forms of the detail page are in user-forms.ts. Every write calls the same
// model functions as the REST API (models/auth/admin-users.ts).
import type { Request, Response } from 'express';
import { activeConfig } from '../../lib/config.js';
import { logger } from '../../lib/logger.js';
import { sendInvitationEmail } from '../../mail/index.js';
import { hasPermission } from '../../middleware/require-auth.js';
import { validateValue } from '../../middleware/validate.js';
import { createUser, getUser, listUserRoles, listUsers } from '../../models/auth/admin-users.js';
import { BASE_ROLE, listRoles } from '../../models/auth/roles.js';
import { countUserSessions } from '../../models/auth/sessions.js';
import { callerOf } from '../api/caller.js';
import { adminMessages } from './messages.js';
import { inviteUserForm, userListQuery } from './schemas.js';
import { redirectWithFlash, renderAdmin, type FormLocals } from './shell.js';

export const USERS_PAGE_SIZE = 25;

async function roleOptions(): Promise<Array<{ value: string | number; label: string; id: number; name: string }>> {
  const { items } = await listRoles({ limit: 500, offset: 0 });
  return items.map((role) => ({ value: role.name, label: role.name, id: role.id, name: role.name }));
}

// GET /admin/users?search=&page=
export async function showUserList(req: Request, res: Response): Promise<void> {
  const { search, page } = validateValue<{ search: string; page: number }>(userListQuery, req.query, { allowUnknown: true });
  const { items, total } = await listUsers({ search: search || undefined, limit: USERS_PAGE_SIZE, offset: (page - 1) * USERS_PAGE_SIZE });
  const pages = Math.max(1, Math.ceil(total / USERS_PAGE_SIZE));
  const link = (target: number) => `/admin/users?${new URLSearchParams({ ...(search ? { search } : {}), page: String(target) })}`;
  await renderAdmin(req, res, 'admin/users/list.njk', {
    pageTitle: 'Utilisateurs',
    users: items,
    total,
    search,
    page,
    pages,
    previous: page > 1 ? link(page - 1) : undefined,
    next: page < pages ? link(page + 1) : undefined,
    canManage: hasPermission(req, 'users.manage'),
  });
}

// GET /admin/users/new
export async function showInviteForm(req: Request, res: Response, locals: FormLocals = {}, status = 200): Promise<void> {
  await renderAdmin(
    req,
    res,
    'admin/users/new.njk',
    { pageTitle: 'Inviter un utilisateur', roles: await roleOptions(), values: { role: BASE_ROLE }, ...locals },
    status,
  );
}

// POST /admin/users — with a password the account is usable at once; without, the
// invitation email is sent (SPEC A7).
export async function inviteUser(req: Request, res: Response): Promise<void> {
  const input = validateValue<{ name: string; email: string; role: string; password?: string }>(inviteUserForm, req.body, { allowUnknown: true });
  const { user, setupToken } = await createUser(callerOf(req), { ...input, password: input.password || undefined });
  if (setupToken === undefined) return redirectWithFlash(req, res, `/admin/users/${user.id}`, adminMessages.userCreated);
  try {
    await sendInvitationEmail(user.email, setupToken, activeConfig().baseUrl);
  } catch (error) {
    logger.warn({ err: error instanceof Error ? error.message : String(error), userId: user.id }, 'invitation not sent');
    return redirectWithFlash(req, res, `/admin/users/${user.id}`, adminMessages.userInvitationFailed(user.email), 'error');
  }
  redirectWithFlash(req, res, `/admin/users/${user.id}`, adminMessages.userInvited(user.email));
}

// GET /admin/users/:id — also the page re-rendered when one of its forms is refused.
export async function showUserDetail(req: Request, res: Response, locals: FormLocals = {}, status = 200): Promise<void> {
  const id = Number(req.params.id);
  const [user, userRoles, roles, sessions] = await Promise.all([getUser(id), listUserRoles(id), roleOptions(), countUserSessions(id)]);
  const held = new Set(userRoles.map((role) => role.name));
  await renderAdmin(
    req,
    res,
    'admin/users/detail.njk',
    {
      pageTitle: user.name,
      target: user,
      userRoles,
      roles,
      assignable: roles.filter((role) => !held.has(role.name)).map((role) => ({ value: role.id, label: role.name })),
      sessions,
      canManage: hasPermission(req, 'users.manage'),
      ...locals,
    },
    status,
  );
}
