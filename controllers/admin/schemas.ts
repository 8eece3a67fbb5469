// joi schemas of the admin and profile forms (urlencoded; unknown fields are ignored).
// Labels are the French field names, so messages read «Nom» est obligatoire.
import Joi from 'joi';

const email = Joi.string().trim().lowercase().max(254).email({ tlds: { allow: false } }).label('Courriel');
const name = Joi.string().trim().min(1).max(100).label('Nom');
const password = Joi.string().min(1).max(1000).label('Mot de passe');
const roleName = Joi.string().trim().min(1).max(64).label('Rôle');
const id = Joi.number().integer().min(1).max(2_147_483_647);

export const userListQuery = Joi.object({
  search: Joi.string().trim().max(200).allow('').default(''),
  page: Joi.number().integer().min(1).max(1_000_000).default(1),
}).unknown(true);

export const inviteUserForm = Joi.object({
  name: name.required(),
  email: email.required(),
  role: roleName.required(),
  // Empty means «send an invitation».
  password: Joi.string().max(1000).allow('').label('Mot de passe'),
});
export const editUserForm = Joi.object({ name: name.required(), role: roleName.required() });
export const userEmailForm = Joi.object({ email: email.required() });
export const userPasswordForm = Joi.object({ password: password.required() });
export const assignRoleForm = Joi.object({ role_id: id.required().label('Rôle') });

const permissionKeys = Joi.array().items(Joi.string().max(64)).max(500).single().default([]);
export const roleForm = Joi.object({
  name: Joi.string().trim().min(1).max(64).pattern(/^[\p{L}\p{N}_ .-]+$/u).required().label('Nom'),
  description: Joi.string().trim().max(500).allow('').default('').label('Description'),
  permissions: permissionKeys,
});
export const systemRoleForm = Joi.object({
  description: Joi.string().trim().max(500).allow('').default('').label('Description'),
  permissions: permissionKeys,
});

export const profileNameForm = Joi.object({ name: name.required() });
export const profileEmailForm = Joi.object({
  email: email.required().label('Nouveau courriel'),
  current_password: password.required().label('Mot de passe actuel'),
});
export const profilePasswordForm = Joi.object({
  current_password: password.required().label('Mot de passe actuel'),
  new_password: password.required().label('Nouveau mot de passe'),
  confirm_password: password.required().label('Confirmation'),
});
export const sessionIdParams = Joi.object({ sessionId: Joi.string().hex().length(32).required() });
export const idParams = Joi.object({ id: id.required() }).unknown(true);
export const userRoleParams = Joi.object({ id: id.required(), roleId: id.required() });
