// /admin/roles: list with user counts, create, edit with the catalogue as grouped
// checkboxes, delete after confirmation. `admin` is read-only; other system roles keep
// their name. Writes go through models/auth/roles.ts, as the REST API does.
import { ConflictError, ValidationError } from '../../lib/errors.js';
import { hasPermission } from '../../middleware/require-auth.js';
import { ENROLMENT_PAGE } from '../../middleware/two-factor-gate.js';
import {
  ADMIN_ACCESS,
  ADMIN_ROLE,
  createRoleNamedFromLabel,
  deleteRole,
  getRole,
  listRoles,
  permissionCatalogue,
  roleNameFromLabel,
  roleWarnings,
  updateRole,
} from '../../models/auth/roles.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { callerOf } from '../api/caller.js';
import { adminMessages, adminTitles } from './messages.js';
import type { RoleForm } from './schemas.js';
import { pathId, redirectWithFlash, renderAdmin } from './shell.js';
import { roleMessages } from '../../models/auth/messages.js';
import { listSsoProviders } from '../../models/auth/sso-providers.js';
import type { AppContext } from '../../lib/context.js';

type None = Record<string, never>;
type Id = { id: number };

function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

// GET /admin/roles
export async function showRoleList(call: Call): Promise<void> {
  const { items } = await listRoles(call.ctx, { limit: 500, offset: 0 });
  await renderAdmin(call, 'admin/roles/list.njk', { pageTitle: adminTitles.roles, roles: items, canManage: hasPermission(call.req, 'roles.manage') });
}

/**
 * The boxes ticked on a re-render: as submitted, plus «Accéder à l'administration» when
 * the form comes back because it was missing (the hidden field then marks the warning shown).
 */
function checkedAfter(locals: FormLocals, fallback: string[]): { checked: string[]; adminAccessWarned: boolean } {
  const checked = locals.values ? asList(locals.values.permissions) : fallback;
  if (locals.errorCode !== 'admin_access_missing') return { checked, adminAccessWarned: Boolean(locals.values?.admin_access_warned) };
  return { checked: [...new Set([...checked, ADMIN_ACCESS])], adminAccessWarned: true };
}

/**
 * Administration permissions without admin.access are not saved silently: the first
 * submission comes back (400 admin_access_missing) with the box ticked; the second, which
 * carries the hidden admin_access_warned, is saved as the person then chose.
 */
function askAboutAdminAccess(body: Pick<RoleForm, 'permissions' | 'admin_access_warned'>): void {
  if (body.admin_access_warned || roleWarnings(body.permissions).length === 0) return;
  throw new ValidationError(adminMessages.adminAccessTicked, {
    code: 'admin_access_missing',
    details: [{ field: 'permissions', message: adminMessages.adminAccessTicked }],
  });
}

/** The form's choice as the model takes it: null for «Toutes», else the ticked ways; undefined when the form has none (`admin`'s). */
function signInMethodsOf(body: Pick<RoleForm, 'sign_in_policy' | 'sign_in_methods'>): string[] | null | undefined {
  if (body.sign_in_policy === undefined) return undefined;
  return body.sign_in_policy === 'any' ? null : body.sign_in_methods;
}

/** The ways a role may list, for the form: the password, passkeys, and each provider (disabled ones said so). */
async function signInChoices(ctx: AppContext): Promise<Array<{ key: string; label: string }>> {
  const providers = await listSsoProviders(ctx);
  return [
    { key: 'password', label: adminMessages.signInPassword },
    { key: 'passkey', label: adminMessages.signInPasskey },
    ...providers.map((provider) => ({ key: `sso:${provider.id}`, label: adminMessages.signInProvider(provider.label, provider.enabled) })),
  ];
}

/** The policy as the form shows it: as submitted on a re-render, else the role's. */
function signInPolicyLocals(locals: FormLocals, stored: string[] | null): { signInListed: boolean; signInChecked: string[] } {
  if (locals.values && locals.values.sign_in_policy !== undefined)
    return { signInListed: locals.values.sign_in_policy === 'listed', signInChecked: asList(locals.values.sign_in_methods) };
  return { signInListed: stored !== null, signInChecked: stored ?? [] };
}

// GET /admin/roles/new — also the page re-rendered when the creation is refused.
export async function showNewRole(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const { checked, adminAccessWarned } = checkedAfter(locals, []);
  await renderAdmin(
    call,
    'admin/roles/form.njk',
    {
      pageTitle: adminTitles.newRole,
      catalogue: await permissionCatalogue(call.ctx),
      action: '/admin/roles',
      creating: true,
      signInChoices: await signInChoices(call.ctx),
      ...locals,
      ...signInPolicyLocals(locals, null),
      checked,
      adminAccessWarned,
    },
    status,
  );
}

// POST /admin/roles {label, name?, description, permissions[], admin_access_warned?}
export async function saveNewRole({ ctx, req, res, body }: Call<None, None, RoleForm>): Promise<void> {
  askAboutAdminAccess(body);
  const role = await createRoleNamedFromLabel(ctx, callerOf(req), {
    name: body.name ?? '',
    label: body.label!,
    description: body.description,
    permissions: body.permissions,
    require_2fa: body.require_2fa,
    sign_in_methods: signInMethodsOf(body),
  });
  redirectWithFlash(req, res, `/admin/roles/${role.id}`, adminMessages.roleCreated);
}

// GET /admin/roles/:id — the edit form (read-only for admin).
export async function showRole(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const { ctx, req } = call;
  const role = await getRole(ctx, pathId(call));
  const { checked, adminAccessWarned } = checkedAfter(locals, role.permissions);
  // A role that gives a permission the manager lacks is shown, not offered for change
  // (the model refuses the change anyway: models/auth/roles.ts).
  const outranked = role.permissions.some((key) => !hasPermission(req, key));
  const canManage = hasPermission(req, 'roles.manage') && !outranked;
  await renderAdmin(
    call,
    'admin/roles/form.njk',
    {
      pageTitle: adminTitles.role(role.label),
      role,
      catalogue: await permissionCatalogue(ctx),
      action: `/admin/roles/${role.id}`,
      readOnly: role.name === ADMIN_ROLE || !canManage,
      outrankedNotice: outranked && hasPermission(req, 'roles.manage') ? adminMessages.roleOutranksManager : undefined,
      // `admin` takes one change: whether its holders must use two-step verification.
      canRequireSecondFactor: canManage,
      // Said before the box is ticked: requiring it would shut this manager out until it enrols.
      lockoutHint:
        canManage && !role.require_2fa && req.user!.roles.includes(role.name) && !req.user!.second_factor_enabled
          ? adminMessages.requirementLocksYouOut
          : undefined,
      values: { name: role.name, label: role.label, description: role.description, require_2fa: role.require_2fa },
      signInChoices: await signInChoices(ctx),
      ...locals,
      ...signInPolicyLocals(locals, role.sign_in_methods),
      checked,
      adminAccessWarned,
    },
    status,
  );
}

// POST /admin/roles/:id — a system role's form has no name: it keeps its own.
export async function saveRole({ ctx, req, res, params, body }: Call<Id, None, RoleForm>): Promise<void> {
  const role = await getRole(ctx, params.id);
  if (role.name !== ADMIN_ROLE) askAboutAdminAccess(body);
  const { name, admin_access_warned: _warned, sign_in_policy: _policy, sign_in_methods: _methods, ...form } = body;
  const rest = { ...form, sign_in_methods: signInMethodsOf(body) };
  const key = name || roleNameFromLabel(body.label ?? role.label);
  const changes = role.name === ADMIN_ROLE ? { require_2fa: body.require_2fa, confirm: body.confirm } : role.system ? rest : { ...rest, name: key };
  const { callerMustEnrol } = await updateRole(ctx, callerOf(req), params.id, changes);
  // The manager now reaches nothing but enrolment: sent there, not to a 403.
  if (callerMustEnrol) return redirectWithFlash(req, res, ENROLMENT_PAGE, adminMessages.roleSavedEnrolNow);
  redirectWithFlash(req, res, `/admin/roles/${params.id}`, adminMessages.roleSaved);
}

// GET /admin/roles/:id/delete — the confirmation page.
export async function confirmDeleteRole(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const role = await getRole(call.ctx, pathId(call));
  if (role.system) throw new ConflictError(roleMessages.systemRoleNotDeletable, { code: 'system_role' });
  await renderAdmin(call, 'admin/roles/delete.njk', { pageTitle: adminTitles.deleteRole(role.label), role, ...locals }, status);
}

// POST /admin/roles/:id/delete
export async function removeRole({ ctx, req, res, params }: Call<Id>): Promise<void> {
  await deleteRole(ctx, callerOf(req), params.id);
  redirectWithFlash(req, res, '/admin/roles', adminMessages.roleDeleted);
}
