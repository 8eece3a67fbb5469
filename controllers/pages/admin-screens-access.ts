// The editor's «Accès» (pages for members): who may read the page beside its
// visibility. Its own small form (POST /admin/pages/:id/access), apart from the
// document's: the rule is live at once, never part of a draft, and needs the right to
// publish the page (PUBLISH_PAGE), as any live change does.
import Joi from 'joi';
import type { AppContext } from '../../lib/context.js';
import { id, text } from '../../lib/schema-primitives.js';
import { PAGE_ACCESSES, roleChoices, setPageAccess, type PageAccess } from '../../models/pages/access.js';
import type { Page } from '../../models/pages/pages.js';
import type { Call } from '../../routes/define.js';
import { redirectWithFlash } from '../admin/shell.js';
import { actorOf } from './admin-call.js';
import { accessScreenMessages } from './messages.js';

interface AccessForm {
  access: PageAccess;
  access_roles: number[];
}

// A single checked box arrives as a string, several as an array.
export const accessForm = Joi.object<AccessForm>({
  access: text()
    .valid(...PAGE_ACCESSES)
    .required()
    .label(accessScreenMessages.accessLabel),
  access_roles: Joi.array().items(id).single().max(100).default([]).label(accessScreenMessages.rolesLabel),
});

/** What the side panel shows: the page's rule and every role it may name. */
export async function accessPanel(
  ctx: AppContext,
  page: Page,
): Promise<{ choices: typeof ACCESS_CHOICES; roles: Array<{ id: number; label: string; checked: boolean }> }> {
  const chosen = new Set(page.access_roles);
  return { choices: ACCESS_CHOICES, roles: (await roleChoices(ctx)).map((role) => ({ ...role, checked: chosen.has(role.id) })) };
}

const ACCESS_CHOICES = [
  { value: 'everyone', label: accessScreenMessages.everyone },
  { value: 'members', label: accessScreenMessages.members },
  { value: 'roles', label: accessScreenMessages.roles },
];

// POST /admin/pages/:id/access
export async function saveAccess(call: Call<{ id: number }, Record<string, never>, AccessForm>): Promise<void> {
  const rule = await setPageAccess(call.ctx, call.params.id, { access: call.body.access, access_roles: call.body.access_roles }, actorOf(call));
  redirectWithFlash(call.req, call.res, `/admin/pages/${call.params.id}`, accessScreenMessages.saved(rule.access));
}
