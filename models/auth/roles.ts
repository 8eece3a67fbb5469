// Roles and the permission catalogue: every SQL statement behind /app/api/roles and
// /app/api/permissions. Rules that live here: names are unique, permissions come from
// the catalogue only, system roles are never deleted nor renamed, `admin` is never
// edited but for its two-step requirement, a caller grants or withdraws only permissions
// it holds itself, and changes or deletes a role only when it holds all of that role's.
import { inTransaction, type AppContext } from '../../lib/context.js';
import { recordAudit, sourceOf, type AuditTarget } from '../audit.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { roleMessages } from './messages.js';
import { checkedSignInMethods } from './sign-in-policy.js';

export const ADMIN_ROLE = 'admin';
export const BASE_ROLE = 'user';

export interface Role {
  id: number;
  name: string;
  /** What people read on the screens («Administrateur»); `name` is the key. */
  label: string;
  description: string;
  permissions: string[];
  system: boolean;
  /** Holders must set up two-step verification before reaching anything else. */
  require_2fa: boolean;
  /** The ways its members may sign in (`password`, `passkey`, `sso:<provider id>`); null: every way. */
  sign_in_methods: string[] | null;
  user_count: number;
}

/** Someone acting through the API: its id and its effective permissions this request. */
export interface Caller {
  id: number;
  permissions: string[];
  /** Its name now: the audit log keeps it as a snapshot. */
  name: string;
  /** The client address (req.ip) the audit log records (callerOf sets it); null when unknown. */
  ip: string | null;
}

// `admin` holds every permission by definition, even one a module adds later.
const ROLE_COLUMNS = `
  r.id, r.name, r.label, r.description, r.system, r.require_2fa, r.sign_in_methods,
  CASE WHEN r.name = '${ADMIN_ROLE}'
    THEN ARRAY(SELECT p.key FROM app_auth_permissions p ORDER BY p.key)
    ELSE ARRAY(SELECT rp.permission_key FROM app_auth_role_permissions rp WHERE rp.role_id = r.id ORDER BY rp.permission_key)
  END AS permissions,
  (SELECT count(*) FROM (
     SELECT u.id FROM app_auth_users u WHERE u.role_id = r.id
     UNION
     SELECT ur.user_id FROM app_auth_user_roles ur WHERE ur.role_id = r.id
   ) holders)::int AS user_count`;

export async function listRoles(ctx: AppContext, page: { limit: number; offset: number }): Promise<{ items: Role[]; total: number }> {
  const [{ rows }, total] = await Promise.all([
    ctx.db.raw<{ rows: Role[] }>(`SELECT ${ROLE_COLUMNS} FROM app_auth_roles r ORDER BY r.system DESC, r.name LIMIT ? OFFSET ?`, [page.limit, page.offset]),
    ctx.db('app_auth_roles').count<{ count: number }[]>({ count: '*' }).first(),
  ]);
  return { items: rows, total: Number(total?.count ?? 0) };
}

async function findRole(ctx: AppContext, id: number): Promise<Role | undefined> {
  const { rows } = await ctx.db.raw<{ rows: Role[] }>(`SELECT ${ROLE_COLUMNS} FROM app_auth_roles r WHERE r.id = ?`, [id]);
  return rows[0];
}

export async function getRole(ctx: AppContext, id: number): Promise<Role> {
  const role = await findRole(ctx, id);
  if (!role) throw new NotFoundError(roleMessages.notFound);
  return role;
}

/** The user's effective roles (primary first), each flagged `primary`. */
export async function rolesOfUser(ctx: AppContext, userId: number): Promise<Array<Role & { primary: boolean }>> {
  const { rows } = await ctx.db.raw<{ rows: Array<Role & { primary: boolean }> }>(
    `SELECT ${ROLE_COLUMNS}, (r.id = u.role_id) AS primary
     FROM app_auth_users u
     JOIN app_auth_roles r ON r.id = u.role_id OR r.id IN (SELECT role_id FROM app_auth_user_roles WHERE user_id = u.id)
     WHERE u.id = ?
     ORDER BY (r.id = u.role_id) DESC, r.name`,
    [userId],
  );
  return rows;
}

export interface CatalogueSection {
  section: string;
  label: string;
  permissions: Array<{ key: string; label: string }>;
}

/** The catalogue grouped by section: core sections (positions below 100) first, then modules'. */
export async function permissionCatalogue(ctx: AppContext): Promise<CatalogueSection[]> {
  const rows = await ctx
    .db('app_auth_permission_sections as s')
    .join('app_auth_permissions as p', 'p.section', 's.key')
    .orderBy([{ column: 's.position' }, { column: 's.key' }, { column: 'p.position' }, { column: 'p.key' }])
    .select<Array<{ section: string; section_label: string; key: string; label: string }>>('s.key as section', 's.label as section_label', 'p.key', 'p.label');
  const sections: CatalogueSection[] = [];
  for (const row of rows) {
    let section = sections.at(-1);
    if (section?.section !== row.section) {
      section = { section: row.section, label: row.section_label, permissions: [] };
      sections.push(section);
    }
    section.permissions.push({ key: row.key, label: row.label });
  }
  return sections;
}

async function assertKnownPermissions(ctx: AppContext, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  const known = new Set<string>(await ctx.db('app_auth_permissions').whereIn('key', keys).pluck('key'));
  const unknown = keys.filter((key) => !known.has(key));
  if (unknown.length) {
    const message = roleMessages.unknownPermissions.replace('{keys}', unknown.join(', '));
    throw new ValidationError(message, { code: 'unknown_permission', details: [{ field: 'permissions', message }] });
  }
}

/** Permissions held by a role, `admin` meaning all of them. */
export async function permissionsOfRole(ctx: AppContext, roleId: number): Promise<string[]> {
  const role = await ctx.db('app_auth_roles').where({ id: roleId }).first('name');
  if (role?.name === ADMIN_ROLE) return ctx.db('app_auth_permissions').orderBy('key').pluck('key');
  return ctx.db('app_auth_role_permissions').where({ role_id: roleId }).orderBy('permission_key').pluck('permission_key');
}

/** No escalation: a caller grants or withdraws only permissions it holds itself. */
export function assertWithinCallerPermissions(caller: Caller, keys: Iterable<string>): void {
  const held = new Set(caller.permissions);
  const missing = [...new Set(keys)].filter((key) => !held.has(key));
  if (missing.length) throw new ForbiddenError(roleMessages.escalation.replace('{keys}', missing.sort().join(', ')), { code: 'escalation' });
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === '23505';
}

/** A unique violation as the conflict people can act on: the label's index, else the name's. */
function nameOrLabelTaken(error: unknown): ConflictError {
  const constraint = (error as { constraint?: string }).constraint;
  return constraint === 'app_auth_roles_label_unique'
    ? new ConflictError(roleMessages.labelTaken, { code: 'role_label_taken', details: [{ field: 'label', message: roleMessages.labelTaken }] })
    : new ConflictError(roleMessages.nameTaken, { code: 'role_name_taken' });
}

/** The permission every administration route asks for besides its own (SPEC, Authentication 2). */
export const ADMIN_ACCESS = 'admin.access';

export interface RoleWarning {
  code: 'admin_access_missing';
  message: string;
}

/**
 * What a role's permissions cannot do as they are: every catalogue permission serves an
 * administration route, which also asks for admin.access. Any set stays valid (SPEC);
 * the API reports this and the screen asks once.
 */
export function roleWarnings(permissions: string[]): RoleWarning[] {
  const administration = permissions.some((key) => key !== ADMIN_ACCESS);
  return administration && !permissions.includes(ADMIN_ACCESS) ? [{ code: 'admin_access_missing', message: roleMessages.adminAccessMissing }] : [];
}

/** A role's key from its label: «Rédacteur en chef» → `redacteur-en-chef` (letters, digits and hyphens). */
export function roleNameFromLabel(label: string): string {
  const key = label
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56)
    .replace(/-+$/, '');
  return key || 'role';
}

export interface RoleInput {
  name: string;
  /** Absent: the name (the API's body of DESIGN §3 has no label). */
  label?: string;
  description?: string;
  permissions: string[];
  require_2fa?: boolean;
  /** null or absent: every way. */
  sign_in_methods?: string[] | null;
}

/** As createRole; a name left empty is derived from the label, `-2`, `-3`… added while the derived one is taken. */
export async function createRoleNamedFromLabel(ctx: AppContext, caller: Caller, input: RoleInput & { label: string }): Promise<Role> {
  if (input.name) return createRole(ctx, caller, input);
  const base = roleNameFromLabel(input.label);
  for (let n = 1; ; n++) {
    try {
      return await createRole(ctx, caller, { ...input, name: n === 1 ? base : `${base}-${n}` });
    } catch (error) {
      if (!(error instanceof ConflictError && error.code === 'role_name_taken') || n >= 50) throw error;
    }
  }
}

export async function createRole(ctx: AppContext, caller: Caller, input: RoleInput): Promise<Role> {
  const permissions = [...new Set(input.permissions)];
  return inTransaction(ctx, async (tx) => {
    await assertKnownPermissions(tx, permissions);
    assertWithinCallerPermissions(caller, permissions);
    const signInMethods = await checkedSignInMethods(tx, input.sign_in_methods);
    const row = {
      name: input.name,
      label: input.label ?? input.name,
      description: input.description ?? '',
      system: false,
      require_2fa: input.require_2fa ?? false,
      sign_in_methods: signInMethods ?? null,
    };
    // A taken name is skipped (no row back); a taken label fails the statement.
    const inserted = await tx
      .db('app_auth_roles')
      .insert(row)
      .onConflict('name')
      .ignore()
      .returning('id')
      .catch((error: unknown) => {
        throw isUniqueViolation(error) ? nameOrLabelTaken(error) : error;
      });
    if (inserted.length === 0) throw new ConflictError(roleMessages.nameTaken, { code: 'role_name_taken' });
    const roleId = inserted[0].id;
    if (permissions.length) await tx.db('app_auth_role_permissions').insert(permissions.map((key) => ({ role_id: roleId, permission_key: key })));
    await recordAudit(tx, {
      ...sourceOf(caller),
      action: 'role.created',
      target: roleTarget({ id: roleId, name: input.name }),
      details: { permissions: permissions.sort(), ...(signInMethods ? { sign_in_methods: signInMethods } : {}) },
    });
    return (await findRole(tx, roleId))!;
  });
}

function roleTarget(role: { id: number; name: string }): AuditTarget {
  return { type: 'role', id: role.id, label: role.name };
}

export interface RoleChanges {
  name?: string;
  label?: string;
  description?: string;
  permissions?: string[];
  require_2fa?: boolean;
  /** null: every way. */
  sign_in_methods?: string[] | null;
  /** Not a change: the caller's consent to require two-step verification of a role it holds without having it. */
  confirm?: boolean;
}

export interface RoleUpdate {
  role: Role;
  /** The caller now holds a role requiring two-step verification, which it has not set up: enrolment is all it reaches. */
  callerMustEnrol: boolean;
}

/** Whether the caller holds the role (primary or extra) without two-step verification set up. */
async function holdsWithoutSecondFactor(tx: AppContext, callerId: number, roleId: number): Promise<boolean> {
  const { rows } = await tx.db.raw<{ rows: Array<{ exposed: boolean }> }>(
    `SELECT (u.role_id = ? OR EXISTS (SELECT 1 FROM app_auth_user_roles ur WHERE ur.user_id = u.id AND ur.role_id = ?))
        AND NOT EXISTS (SELECT 1 FROM app_auth_two_factor tf WHERE tf.user_id = u.id AND tf.enabled_at IS NOT NULL) AS exposed
     FROM app_auth_users u WHERE u.id = ?`,
    [roleId, roleId, callerId],
  );
  return Boolean(rows[0]?.exposed);
}

export async function updateRole(ctx: AppContext, caller: Caller, id: number, changes: RoleChanges): Promise<RoleUpdate> {
  return inTransaction(ctx, async (tx) => {
    const role = await tx.db('app_auth_roles').where({ id }).forUpdate().first();
    if (!role) throw new NotFoundError(roleMessages.notFound);
    // `admin` keeps its name and all permissions; requiring two-step verification of
    // its holders is the one change it takes (it is the role that most needs it).
    const onlyRequirement = changes.name === undefined && changes.label === undefined && changes.description === undefined && changes.permissions === undefined;
    // Its sign-in stays open to every way: the way in when a provider fails.
    const restricted = changes.sign_in_methods !== undefined && changes.sign_in_methods !== null;
    if (role.name === ADMIN_ROLE && (!onlyRequirement || restricted)) throw new ConflictError(roleMessages.adminNotEditable, { code: 'system_role' });
    const renamed = changes.name !== undefined && changes.name !== role.name;
    if (role.system && renamed) throw new ConflictError(roleMessages.systemRoleNotRenamable, { code: 'system_role' });
    // A role is changed (name, label, description, requirement, permissions) only by a
    // caller who holds every permission it gives: else a role manager could weaken the
    // roles above it (lift `admin`'s two-step requirement) or make one read as another.
    // Renaming is the same rule, with its own words: roles are granted by name, so a
    // rename changes what a name gives. Checked on the row locked above, before any
    // permission of this request changes, in the transaction that writes.
    const missing = (await permissionsOfRole(tx, id)).filter((key) => !caller.permissions.includes(key));
    if (missing.length) {
      const message = role.name === ADMIN_ROLE ? roleMessages.adminOutranksCaller : renamed ? roleMessages.renameEscalation : roleMessages.outranksCaller;
      throw new ForbiddenError(message.replace('{keys}', missing.join(', ')), { code: 'escalation' });
    }
    // Requiring two-step verification of a role the caller holds without having it
    // shuts the caller out of everything but enrolment at its next request: said first
    // (409), done once confirmed, and the caller is then sent to enrol.
    const callerMustEnrol = changes.require_2fa === true && !role.require_2fa && (await holdsWithoutSecondFactor(tx, caller.id, id));
    if (callerMustEnrol && changes.confirm !== true) {
      throw new ConflictError(roleMessages.requirementLocksCallerOut, {
        code: 'second_factor_confirmation_required',
        details: [{ field: 'confirm', message: roleMessages.requirementLocksCallerOut }],
      });
    }
    // What changed, for the audit event.
    const changed: Record<string, unknown> = {};
    if (renamed) changed.name = { from: role.name, to: changes.name };
    if (changes.label !== undefined && changes.label !== role.label) changed.label = { from: role.label, to: changes.label };
    if (changes.description !== undefined && changes.description !== role.description)
      changed.description = { from: role.description, to: changes.description };
    if (changes.require_2fa !== undefined && changes.require_2fa !== role.require_2fa)
      changed.require_2fa = { from: role.require_2fa, to: changes.require_2fa };
    const signInMethods = await checkedSignInMethods(tx, changes.sign_in_methods);
    if (signInMethods !== undefined && JSON.stringify(signInMethods) !== JSON.stringify(role.sign_in_methods))
      changed.sign_in_methods = { from: role.sign_in_methods, to: signInMethods };
    if (changes.permissions !== undefined) {
      const next = new Set(changes.permissions);
      await assertKnownPermissions(tx, [...next]);
      const current = new Set(await permissionsOfRole(tx, id));
      const added = [...next].filter((key) => !current.has(key));
      const removed = [...current].filter((key) => !next.has(key));
      assertWithinCallerPermissions(caller, [...added, ...removed]);
      if (removed.length) await tx.db('app_auth_role_permissions').where({ role_id: id }).whereIn('permission_key', removed).delete();
      if (added.length) await tx.db('app_auth_role_permissions').insert(added.map((key) => ({ role_id: id, permission_key: key })));
      if (added.length || removed.length) changed.permissions = { added: added.sort(), removed: removed.sort() };
    }
    const update: Record<string, unknown> = { updated_at: tx.db.fn.now() };
    if (changes.name !== undefined) update.name = changes.name;
    if (changes.label !== undefined) update.label = changes.label;
    if (changes.description !== undefined) update.description = changes.description;
    if (changes.require_2fa !== undefined) update.require_2fa = changes.require_2fa;
    if (signInMethods !== undefined) update.sign_in_methods = signInMethods;
    try {
      await tx.db('app_auth_roles').where({ id }).update(update);
    } catch (error) {
      if (isUniqueViolation(error)) throw nameOrLabelTaken(error);
      throw error;
    }
    await recordAudit(tx, {
      ...sourceOf(caller),
      action: 'role.updated',
      target: roleTarget({ id, name: changes.name ?? role.name }),
      details: { changes: changed, ...(callerMustEnrol ? { locks_out_caller: true } : {}) },
    });
    return { role: (await findRole(tx, id))!, callerMustEnrol };
  });
}

/**
 * Deletes a custom role. Users whose primary role it was fall back to the base role
 * `user`; extra assignments go with the role. Withdrawing its permissions from its
 * holders counts as withdrawing them, so the caller must hold them all.
 */
export async function deleteRole(ctx: AppContext, caller: Caller, id: number): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const role = await tx.db('app_auth_roles').where({ id }).forUpdate().first();
    if (!role) throw new NotFoundError(roleMessages.notFound);
    if (role.system) throw new ConflictError(roleMessages.systemRoleNotDeletable, { code: 'system_role' });
    assertWithinCallerPermissions(caller, await permissionsOfRole(tx, id));
    const base = await tx.db('app_auth_roles').where({ name: BASE_ROLE }).first('id');
    // The system role user is seeded by the migrations and can never be deleted.
    if (!base) throw new Error('the user role is missing');
    const holders = await tx.db('app_auth_users').where({ role_id: id }).update({ role_id: base.id, updated_at: tx.db.fn.now() });
    await tx.db('app_auth_roles').where({ id }).delete();
    await recordAudit(tx, { ...sourceOf(caller), action: 'role.deleted', target: roleTarget(role), details: { primary_role_of: holders } });
  });
}
