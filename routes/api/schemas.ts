// joi schemas of the /app/api bodies, path params and query strings (DESIGN §3). JSON
// bodies refuse unknown fields (validate() default), so nothing else is ever written.
import Joi from 'joi';

export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

const id = Joi.number().integer().min(1).max(2_147_483_647);
const email = Joi.string().trim().lowercase().max(254).email({ tlds: { allow: false } });
const name = Joi.string().trim().min(1).max(100);
// The policy (8 characters, 72 bytes) is checked by the model with its own message.
const password = Joi.string().min(1).max(1000);
const roleName = Joi.string().trim().min(1).max(64);
const permissionKey = Joi.string().max(64);

// Path ids are plain decimal digits ("1e3", "0x10", " 7" are refused), then numbers.
const idParam = Joi.string()
  .pattern(/^[1-9][0-9]{0,9}$/)
  .custom((value: string, helpers) => (Number(value) > 2_147_483_647 ? helpers.error('number.max', { limit: 2_147_483_647 }) : Number(value)));
export const idParams = Joi.object({ id: idParam.required() });
export const userRoleParams = Joi.object({ id: idParam.required(), roleId: idParam.required() });
export const sessionParams = Joi.object({ sessionId: Joi.string().hex().length(32).required() });

const page = {
  limit: Joi.number().integer().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  offset: Joi.number().integer().min(0).max(1_000_000_000).default(0),
};

export const userListQuery = Joi.object({ ...page, search: Joi.string().trim().max(200).allow('') });
export const pageQuery = Joi.object(page);
export const noQuery = Joi.object({});

export const createUserBody = Joi.object({
  email: email.required(),
  name: name.required(),
  role: roleName,
  password,
});
export const updateUserBody = Joi.object({ name, role: roleName, email_verified: Joi.boolean() }).min(1);
export const emailBody = Joi.object({ email: email.required() });
export const passwordBody = Joi.object({ password: password.required() });
export const assignRoleBody = Joi.object({ role_id: id.required() });

export const profileBody = Joi.object({ name: name.required() });
export const profileEmailBody = Joi.object({ email: email.required(), current_password: password.required() });
export const profilePasswordBody = Joi.object({ current_password: password.required(), new_password: password.required() });
export const confirmEmailQuery = Joi.object({ token: Joi.string().max(100).pattern(/^[A-Za-z0-9_-]+$/).required() });
export const revokeSessionsQuery = Joi.object({ keep_current: Joi.boolean().default(false) });

const permissions = Joi.array().items(permissionKey).max(500).unique();
export const createRoleBody = Joi.object({
  name: roleName.required(),
  description: Joi.string().trim().max(500).allow(''),
  permissions: permissions.required(),
});
export const updateRoleBody = Joi.object({
  name: roleName,
  description: Joi.string().trim().max(500).allow(''),
  permissions,
}).min(1);
export const noBody = Joi.object({});
