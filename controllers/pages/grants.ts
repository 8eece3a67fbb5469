// Grants on a section of the tree (issue 26, item 4): the JSON rows under
// /app/api/admin/pages/:id/permissions and the screen /admin/pages/:id/permissions.
// Managing grants is managing what roles may do: roles.view reads them, roles.manage
// changes them, and a caller gives only permissions it holds site-wide (no escalation).
import Joi from 'joi';
import { ForbiddenError } from '../../lib/errors.js';
import { id, idParam, permissionKey } from '../../lib/schema-primitives.js';
import { getPage } from '../../models/pages/pages.js';
import { grantMessages } from '../../models/pages/grant-messages.js';
import { grantChoices, grantJson, grantOnPage, grantsOn, withdrawGrant } from '../../models/pages/grants.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { pathId, redirectWithFlash, renderAdmin } from '../admin/shell.js';
import { actorOf } from './admin-call.js';

type PageId = { id: number };
type GrantId = { id: number; grantId: number };
interface GrantBody {
  role_id: number;
  permissions: string[];
}

export const grantParams = Joi.object<GrantId>({ id: idParam.required(), grantId: idParam.required() });

export const grantBody = Joi.object<GrantBody>({
  role_id: id.required().label('Rôle'),
  permissions: Joi.array().items(permissionKey).min(1).max(20).unique().required().label('Permissions'),
});

// The form sends one box as a string, several as an array, none as nothing.
export const grantForm = Joi.object<GrantBody>({
  role_id: id.required().label('Rôle'),
  permissions: Joi.array().items(permissionKey).single().max(20).default([]).label('Permissions'),
});

/** No escalation: the caller holds every permission it gives, site-wide. */
function assertMayGive(call: AnyCall, permissions: string[]): void {
  const held = call.req.user?.permissions ?? [];
  const missing = permissions.filter((key) => !held.includes(key));
  if (missing.length) throw new ForbiddenError(grantMessages.escalation(missing.sort().join(', ')), { code: 'escalation' });
}

/** Adds (or replaces) the role's grant on the page: the use case both surfaces call. */
async function addGrant(call: AnyCall, pageId: number, body: GrantBody) {
  assertMayGive(call, body.permissions);
  return grantOnPage(call.ctx, pageId, body.role_id, body.permissions, actorOf(call));
}

// GET /app/api/admin/pages/:id/permissions
export async function listGrants(call: Call<PageId>): Promise<void> {
  await getPage(call.ctx, call.params.id);
  const grants = await grantsOn(call.ctx, call.params.id);
  call.res.json({ items: grants.map(grantJson) });
}

// POST /app/api/admin/pages/:id/permissions
export async function createGrant(call: Call<PageId, Record<string, never>, GrantBody>): Promise<void> {
  call.res.status(201).json(await addGrant(call, call.params.id, call.body));
}

// DELETE /app/api/admin/pages/:id/permissions/:grantId
export async function deleteGrant(call: Call<GrantId>): Promise<void> {
  await withdrawGrant(call.ctx, call.params.id, call.params.grantId, actorOf(call));
  call.res.status(204).end();
}

const screenHref = (pageId: number) => `/admin/pages/${pageId}/permissions`;

// GET /admin/pages/:id/permissions (also the page shown again on a refusal)
export async function showGrants(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const pageId = pathId(call);
  const page = await getPage(call.ctx, pageId);
  const [grants, choices] = await Promise.all([grantsOn(call.ctx, pageId), grantChoices(call.ctx)]);
  const labels = new Map(choices.permissions.map((permission) => [permission.key, permission.label]));
  const held = call.req.user?.permissions ?? [];
  await renderAdmin(
    call,
    'admin/pages/permissions.njk',
    {
      pageTitle: `Permissions de « ${page.title} »`,
      page,
      grants: grants.map((grant) => ({ ...grant, labels: grant.permissions.map((key) => labels.get(key) ?? key) })),
      roles: choices.roles,
      permissions: choices.permissions.filter((permission) => held.includes(permission.key)),
      canManage: held.includes('roles.manage'),
      ...locals,
    },
    status,
  );
}

// POST /admin/pages/:id/permissions
export async function saveGrant(call: Call<PageId, Record<string, never>, GrantBody>): Promise<void> {
  await addGrant(call, call.params.id, call.body);
  redirectWithFlash(call.req, call.res, screenHref(call.params.id), 'Permissions données sur cette page et ses sous-pages.');
}

// POST /admin/pages/:id/permissions/:grantId/delete
export async function removeGrant(call: Call<GrantId>): Promise<void> {
  await withdrawGrant(call.ctx, call.params.id, call.params.grantId, actorOf(call));
  redirectWithFlash(call.req, call.res, screenHref(call.params.id), 'Permissions retirées.');
}
