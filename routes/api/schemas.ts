// joi schemas of the /app/api bodies, path params and query strings (DESIGN §3), built
// from the shared primitives (lib/schema-primitives.ts). The surface is strict: a body
// field or query parameter a row does not declare is a 400, so nothing else is written.
import Joi from 'joi';
import {
  email,
  id,
  idParam,
  pagination,
  password,
  permissionKey,
  personName,
  roleDescription,
  roleLabel,
  roleName,
  sessionId,
  text,
  token,
} from '../../lib/schema-primitives.js';

export interface Page {
  limit: number;
  offset: number;
}

export const userRoleParams = Joi.object<{ id: number; roleId: number }>({ id: idParam.required(), roleId: idParam.required() });
export const sessionParams = Joi.object<{ sessionId: string }>({ sessionId: sessionId.required() });

export const userListQuery = Joi.object<Page & { search?: string }>({ ...pagination(), search: text().trim().max(200).allow('') });
export const pageQuery = Joi.object<Page>(pagination());

export interface CreateUserBody {
  email: string;
  name: string;
  role?: string;
  password?: string;
}
export const createUserBody = Joi.object<CreateUserBody>({ email: email.required(), name: personName.required(), role: roleName, password });

export interface UpdateUserBody {
  name?: string;
  role?: string;
  email_verified?: boolean;
}
export const updateUserBody = Joi.object<UpdateUserBody>({ name: personName, role: roleName, email_verified: Joi.boolean() }).min(1);
export const emailBody = Joi.object<{ email: string }>({ email: email.required() });
export const passwordBody = Joi.object<{ password: string }>({ password: password.required() });
export const assignRoleBody = Joi.object<{ role_id: number }>({ role_id: id.required() });

export const profileBody = Joi.object<{ name: string }>({ name: personName.required() });
export const profileEmailBody = Joi.object<{ email: string; current_password: string }>({ email: email.required(), current_password: password.required() });
export const profilePasswordBody = Joi.object<{ current_password: string; new_password: string }>({
  current_password: password.required(),
  new_password: password.required(),
});
export const confirmEmailQuery = Joi.object<{ token: string }>({ token: token.required() });
export const confirmEmailBody = Joi.object<{ token: string }>({ token: token.required() });
// A TOTP (6 digits) or a recovery code (16 signs, dashes and spaces allowed).
const secondFactorCode = text()
  .trim()
  .max(40)
  .pattern(/^[A-Za-z0-9 -]+$/)
  .messages({ 'string.pattern.base': '{{#label}} ne contient que des chiffres (ou, pour un code de secours, des lettres, chiffres et tirets).' });
export const twoFactorSetupBody = Joi.object<{ current_password: string }>({ current_password: password.required() });
export const twoFactorEnableBody = Joi.object<{ code: string }>({ code: secondFactorCode.required() });
export const twoFactorCheckBody = Joi.object<{ current_password: string; code: string }>({
  current_password: password.required(),
  code: secondFactorCode.required(),
});
export const revokeSessionsQuery = Joi.object<{ keep_current: boolean }>({ keep_current: Joi.boolean().default(false) });
export const deleteOwnAccountBody = Joi.object<{ current_password: string }>({ current_password: password.required() });
export const suspendBody = Joi.object<{ reason?: string }>({ reason: text().trim().max(500).allow('') });

const description = roleDescription;
const permissions = Joi.array().items(permissionKey).max(500).unique();
/** `password`, `passkey`, `sso:<provider id>`; null: every way. */
const signInMethods = Joi.array()
  .items(Joi.string().pattern(/^(password|passkey|sso:[1-9][0-9]{0,9})$/))
  .min(1)
  .max(100)
  .unique()
  .allow(null);

export interface RoleBody {
  name: string;
  /** Optional on creation (the name is used), never empty. */
  label?: string;
  description?: string;
  permissions: string[];
  require_2fa?: boolean;
  sign_in_methods?: string[] | null;
}
export const createRoleBody = Joi.object<RoleBody>({
  name: roleName.required(),
  label: roleLabel,
  description,
  permissions: permissions.required(),
  require_2fa: Joi.boolean(),
  sign_in_methods: signInMethods,
});
/** `confirm`: consent to require two-step verification of a role the caller holds without having it. */
export type RoleUpdateBody = Partial<RoleBody> & { confirm?: boolean };
export const updateRoleBody = Joi.object<RoleUpdateBody>({
  name: roleName,
  label: roleLabel,
  description,
  permissions,
  require_2fa: Joi.boolean(),
  sign_in_methods: signInMethods,
  confirm: Joi.boolean(),
}).min(1);
